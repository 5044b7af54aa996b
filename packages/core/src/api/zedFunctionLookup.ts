import { Effect, Option, Schema } from "effect"
import { ZedFunctionStore } from "../services/ZedFunctionStore.js"
import { NotFound } from "./errors.js"

// One function of a project by the id in the path, for the function's own routes and its metrics.

export const FunctionParams = Schema.Struct({ id: Schema.UUID })

/** The project's function of this id, or a 404. */
export const findFunction = (projectId: number, id: string, includeDeleted = false) =>
  Effect.flatMap(
    Effect.flatMap(ZedFunctionStore, (s) => s.get(projectId, id, includeDeleted)),
    Option.match({
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  )

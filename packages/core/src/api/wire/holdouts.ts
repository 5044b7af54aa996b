import { Effect, Option, Schema, Struct } from "effect"
import { UserBasic } from "../../domain/models.js"
import { Holdout as Entity, type StoredHoldout } from "../../experiments/holdoutEntity.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { HoldoutStore } from "../../services/HoldoutStore.js"
import { userLookup } from "../users.js"

// Experiment holdouts as the API shows them, for their own routes and for the experiments that use one.

export const Holdout = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "description", "filters"),
  created_by: Schema.NullOr(UserBasic),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).annotations({ identifier: "ExperimentHoldout" })

/** Holdouts as the API shows them. */
export const presentHoldouts = (holdouts: ReadonlyArray<StoredHoldout>) =>
  Effect.map(userLookup(holdouts.map((h) => h.created_by)), (user) =>
    holdouts.map((h): typeof Holdout.Type => ({ ...h, created_by: user(h.created_by) }))
  )

/** The project's holdout of this id, or a 400 on `attr`. */
export const holdoutFor = (projectId: number, id: number, attr: string) =>
  Effect.flatMap(
    Effect.flatMap(HoldoutStore, (s) => s.get(projectId, id)),
    Option.match({
      onNone: () =>
        Effect.fail(new ValidationError({ code: "invalid_input", detail: `The holdout ${id} does not exist.`, attr })),
      onSome: Effect.succeed
    })
  )

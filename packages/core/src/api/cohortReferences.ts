import { Effect, Option } from "effect"
import { cohortIdOf } from "../flags/cohorts.js"
import type { FlagPropertyFilter } from "../flags/model.js"
import { CohortStore } from "../services/CohortStore.js"
import { ValidationError } from "../schema/ValidationError.js"
import { INT4_MAX } from "../schema/fields.js"

/** Refuses filters naming a cohort the project does not have (another project's among them): it would match nobody. */
export const checkCohortReferences = (projectId: number, filters: ReadonlyArray<FlagPropertyFilter>, attr: string) =>
  Effect.gen(function* () {
    const cohorts = yield* CohortStore
    for (const filter of filters.filter((f) => f.type === "cohort")) {
      const id = cohortIdOf(filter)
      const found = id !== undefined && id >= 1 && id <= INT4_MAX ? yield* cohorts.get(projectId, id) : Option.none()
      if (Option.isNone(found)) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: `Cohort with id ${String(filter.value)} does not exist.`,
          attr
        })
      }
    }
  })

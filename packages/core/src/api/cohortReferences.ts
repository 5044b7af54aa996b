import { Effect, Option } from "effect"
import { behaviourProblem, isBehavioural } from "../flags/cohortBehaviour.js"
import { cohortIdOf, isPropertyGroup, referencedCohorts } from "../flags/cohorts.js"
import type { FlagPropertyFilter, PropertyGroup } from "../flags/model.js"
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

/** Each filter of a cohort's property group with the path of its field names in the body. */
const filtersWithPaths = (group: PropertyGroup, path: string): Array<readonly [FlagPropertyFilter, string]> =>
  (group.values ?? []).flatMap((value, i) =>
    isPropertyGroup(value)
      ? filtersWithPaths(value, `${path}__values__${i}`)
      : [[value, `${path}__values__${i}`] as const]
  )

/**
 * Refuses a cohort definition naming a cohort the project does not have, a behavioural filter that
 * lacks what its kind needs, or a cohort that would contain itself (directly or through others);
 * `self` is the cohort being changed. Each names the field at fault.
 */
export const checkCohortDefinition = (
  project: { readonly id: number; readonly timezone: string },
  self: number | undefined,
  group: PropertyGroup
) =>
  Effect.gen(function* () {
    const filters = filtersWithPaths(group, "filters__properties")
    for (const [filter, path] of filters) {
      if (filter.type === "cohort") yield* checkCohortReferences(project.id, [filter], `${path}__value`)
      if (isBehavioural(filter)) {
        const problem = behaviourProblem(filter, project.timezone, new Date())
        if (problem !== undefined) {
          return yield* new ValidationError({
            code: "invalid_input",
            detail: problem.detail,
            attr: `${path}__${problem.field}`
          })
        }
      }
    }
    if (self === undefined) return
    const cohorts = new Map(
      (yield* (yield* CohortStore).all(project.id)).map((c) => [c.id, c.id === self ? { ...c, properties: group } : c])
    )
    for (const [filter, path] of filters) {
      const id = filter.type === "cohort" ? cohortIdOf(filter) : undefined
      if (id !== undefined && (id === self || referencedCohorts([filter], cohorts).has(self))) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail:
            id === self
              ? "A cohort cannot contain itself."
              : `Cohort ${id} contains this cohort, so this cohort cannot contain it.`,
          attr: `${path}__value`
        })
      }
    }
  })

import { Effect, Option } from "effect"
import type { Project } from "../domain/models.js"
import { flagHoldoutFilters, type StoredHoldout } from "../experiments/holdoutEntity.js"
import { FlagStore } from "../services/FlagStore.js"
import { updateFlag } from "./flagWrites.js"

/** Puts the holdout (or none) on an experiment's flag, so its persons get `holdout-<id>` first. */
export const setFlagHoldout = (project: Project, flagId: number, holdout: StoredHoldout | null, userId: number) =>
  Effect.gen(function* () {
    const flag = yield* (yield* FlagStore).get(project.id, flagId)
    if (Option.isNone(flag)) return
    yield* updateFlag(project, flagId, {
      last_modified_by: userId,
      filters: { ...flag.value.filters, ...flagHoldoutFilters(holdout) }
    })
  })

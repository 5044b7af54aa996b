import { Effect } from "effect"
import type { FlagPatch, StoredFlag } from "../flags/flagEntity.js"
import { ExperimentStore } from "../services/ExperimentStore.js"
import { statusOf } from "./experimentEntity.js"

// While an experiment runs, its flag must keep serving the same variants in the same split to the
// same keys: a change of key, variants or split (its holdout included), deactivating or deleting it
// would break the result.

const split = (flag: Pick<StoredFlag, "filters">) =>
  JSON.stringify([
    (flag.filters.multivariate?.variants ?? []).map((v) => [v.key, v.rollout_percentage]),
    flag.filters.holdout ?? null
  ])

/** Why the change would break a running experiment on the flag (the field and the reason), if it would. */
export const experimentLock = (projectId: number, flag: StoredFlag, patch: FlagPatch) =>
  Effect.gen(function* () {
    const running = (yield* (yield* ExperimentStore).ofFlag(projectId, flag.id)).filter(
      (e) => statusOf(e) === "running"
    )
    if (running.length === 0) return undefined
    const why = `the experiment "${running[0]!.name}" runs on this flag: stop it first`
    if (patch.key !== undefined && patch.key !== flag.key)
      return { attr: "key", detail: `The key cannot change: ${why}.` }
    if (patch.deleted === true) return { attr: "deleted", detail: `The flag cannot be deleted: ${why}.` }
    if (patch.active === false) return { attr: "active", detail: `The flag cannot be deactivated: ${why}.` }
    if (patch.filters !== undefined && split({ filters: patch.filters }) !== split(flag))
      return { attr: "filters", detail: `The variants, their split and the holdout cannot change: ${why}.` }
    return undefined
  })

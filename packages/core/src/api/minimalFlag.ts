import { Effect, Schema, Struct } from "effect"
import { Flag } from "../flags/flagEntity.js"
import { FlagStore, type StoredFlag } from "../services/FlagStore.js"

/** A flag as embedded in what uses it (surveys, early access features): PostHog's minimal flag. */
export const MinimalFlag = Schema.Struct({
  ...Struct.pick(Flag.fields, "id"),
  team_id: Schema.Int,
  ...Struct.pick(Flag.fields, "key", "name"),
  filters: Schema.Unknown,
  ...Struct.pick(Flag.fields, "active", "deleted", "ensure_experience_continuity", "version")
}).annotations({ identifier: "MinimalFeatureFlag" })

/** The embedding response's schema keeps these fields of the stored flag and drops the rest. */
export const minimalFlag = (projectId: number, flag: StoredFlag | undefined): typeof MinimalFlag.Type | null =>
  flag === undefined ? null : { ...flag, team_id: projectId }

/** The project's live flags by id: one read for a page of what embeds them. */
export const flagsById = (projectId: number) =>
  Effect.map(
    Effect.flatMap(FlagStore, (s) => s.all(projectId)),
    (flags) => new Map(flags.map((f) => [f.id, f]))
  )

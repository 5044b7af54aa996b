import { Effect, Schema } from "effect"
import { FlagStore, type StoredFlag } from "../services/FlagStore.js"

/** A flag as embedded in what uses it (surveys, early access features): PostHog's minimal flag. */
export const MinimalFlag = Schema.Struct({
  id: Schema.Int,
  team_id: Schema.Int,
  key: Schema.String,
  name: Schema.String,
  filters: Schema.Unknown,
  active: Schema.Boolean,
  deleted: Schema.Boolean,
  ensure_experience_continuity: Schema.Boolean,
  version: Schema.Int
}).annotations({ identifier: "MinimalFeatureFlag" })

export const minimalFlag = (projectId: number, flag: StoredFlag | undefined): typeof MinimalFlag.Type | null =>
  flag === undefined ? null : {
    id: flag.id,
    team_id: projectId,
    key: flag.key,
    name: flag.name,
    filters: flag.filters,
    active: flag.active,
    deleted: flag.deleted,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    version: flag.version
  }


/** The project's live flags by id: one read for a page of what embeds them. */
export const flagsById = (projectId: number) => Effect.map(Effect.flatMap(FlagStore, (s) => s.all(projectId)), (flags) => new Map(flags.map((f) => [f.id, f])))

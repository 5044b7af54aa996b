import { type Group, GroupStore, PersonStore, type RecordingMeta, RecordingStore } from "@zed/core/storage"
import { Effect, Option } from "effect"
import { ClickHouse } from "../ClickHouse.js"
import { afterCommit } from "../outbox.js"
import { nextVersion, utcText } from "../params.js"

// Persons, distinct ids, groups and recordings stay processed and served by the metadata store
// (ingestion reads and locks them there); ZedQL reads them in ClickHouse, so every change made
// through these stores is also written there as a new version of the row, after the commit.

type Row = Record<string, unknown>

const personRow = (
  projectId: number,
  id: number,
  p: { uuid: string; properties: Record<string, unknown>; is_identified: boolean; created_at: Date },
  deleted: boolean
): Row => ({
  project_id: projectId,
  id,
  uuid: p.uuid,
  properties: JSON.stringify(p.properties),
  is_identified: p.is_identified,
  created_at: utcText(p.created_at),
  is_deleted: deleted ? 1 : 0
})

const distinctIdRow = (projectId: number, distinctId: string, personId: number, deleted: boolean): Row => ({
  project_id: projectId,
  distinct_id: distinctId,
  person_id: personId,
  is_deleted: deleted ? 1 : 0
})

const groupRow = (projectId: number, g: Group): Row => ({
  project_id: projectId,
  group_type_index: g.group_type_index,
  group_key: g.group_key,
  properties: JSON.stringify(g.properties),
  created_at: utcText(g.created_at)
})

const recordingRow = (projectId: number, r: RecordingMeta, deleted: boolean): Row => ({
  project_id: projectId,
  session_id: r.session_id,
  distinct_id: r.distinct_id,
  start_time: utcText(r.start_time),
  end_time: utcText(r.end_time),
  first_url: r.first_url,
  click_count: r.click_count,
  keypress_count: r.keypress_count,
  mouse_activity_count: r.mouse_activity_count,
  active_ms: r.active_ms,
  console_log_count: r.console_log_count,
  console_warn_count: r.console_warn_count,
  console_error_count: r.console_error_count,
  size: r.size,
  event_count: r.event_count,
  message_count: r.message_count,
  snapshot_source: r.snapshot_source,
  is_deleted: deleted ? 1 : 0
})

/**
 * Rows written after the commit, stamped with versions taken in the transaction: changes to one row
 * are serialized by its lock in the metadata store, so the later change has the higher version.
 */
const mirror = (table: string, rows: ReadonlyArray<Row>) =>
  rows.length === 0
    ? Effect.void
    : Effect.flatMap(ClickHouse, (ch) =>
        Effect.suspend(() =>
          afterCommit(
            "rows",
            ch.insert(
              table,
              rows.map((row) => ({ ...row, version: nextVersion() }))
            )
          )
        )
      )

/** The metadata store's persons, with every change also written to ClickHouse. */
export const mirrorPersons = (persons: PersonStore["Type"], ch: ClickHouse["Type"]): PersonStore["Type"] => {
  const provide = Effect.provideService(ClickHouse, ch)
  return {
    ...persons,
    save: (projectId, changes) =>
      Effect.gen(function* () {
        const ids = yield* persons.save(projectId, changes)
        const idOf = (p: { readonly id: number | undefined; readonly uuid: string }) => p.id ?? ids.get(p.uuid)!
        yield* mirror("persons", [
          ...[...changes.created, ...changes.updated].map((p) => personRow(projectId, idOf(p), p, false)),
          ...changes.deleted.map((d) =>
            personRow(
              projectId,
              d.id,
              { uuid: d.uuid, properties: {}, is_identified: false, created_at: new Date(0) },
              true
            )
          )
        ])
        yield* mirror(
          "person_distinct_ids",
          [...changes.claimed, ...changes.moved].map(({ distinct_id, person }) =>
            distinctIdRow(projectId, distinct_id, idOf(person), false)
          )
        )
        return ids
      }).pipe(provide),
    remove: (projectId, personId) =>
      Effect.gen(function* () {
        const person = yield* persons.get(projectId, { id: personId })
        yield* persons.remove(projectId, personId)
        if (Option.isNone(person)) return
        yield* mirror("persons", [personRow(projectId, personId, person.value, true)])
        yield* mirror(
          "person_distinct_ids",
          person.value.distinct_ids.map((id) => distinctIdRow(projectId, id, personId, true))
        )
      }).pipe(provide)
  }
}

export const mirrorGroups = (groups: GroupStore["Type"], ch: ClickHouse["Type"]): GroupStore["Type"] => ({
  ...groups,
  upsert: (projectId, updates) =>
    Effect.gen(function* () {
      yield* groups.upsert(projectId, updates)
      const keys = new Map(updates.map((u) => [`${u.group_type_index}:${u.group_key}`, u]))
      const stored = yield* Effect.forEach([...keys.values()], (u) =>
        groups.get(projectId, u.group_type_index, u.group_key)
      )
      yield* mirror(
        "groups",
        stored.flatMap((g) => (Option.isSome(g) ? [groupRow(projectId, g.value)] : []))
      )
    }).pipe(Effect.provideService(ClickHouse, ch))
})

export const mirrorRecordings = (
  recordings: RecordingStore["Type"],
  ch: ClickHouse["Type"]
): RecordingStore["Type"] => ({
  ...recordings,
  append: (projectId, chunk) =>
    Effect.gen(function* () {
      const appended = yield* recordings.append(projectId, chunk)
      if (appended) {
        const meta = yield* recordings.get(projectId, chunk.sessionId)
        if (Option.isSome(meta)) yield* mirror("session_recordings", [recordingRow(projectId, meta.value, false)])
      }
      return appended
    }).pipe(Effect.provideService(ClickHouse, ch)),
  remove: (projectId, sessionId) =>
    Effect.gen(function* () {
      const meta = yield* recordings.get(projectId, sessionId)
      const removed = yield* recordings.remove(projectId, sessionId)
      if (removed && Option.isSome(meta))
        yield* mirror("session_recordings", [recordingRow(projectId, meta.value, true)])
      return removed
    }).pipe(Effect.provideService(ClickHouse, ch))
})

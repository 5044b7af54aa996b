import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { QueryRunner } from "../queries/runner.js"
import { RecordingStore } from "../services/RecordingStore.js"
import { type RecordingFilters, recordingsQuery, type SelectionContext } from "./filters.js"

// Recordings a set of filters selects: the ZedQL selection names the sessions, the store holds
// their metadata.

const context = (project: Project): SelectionContext => ({ testAccountFilters: project.test_account_filters })

/** A page of the selected recordings' metadata, in the filters' order. */
export const selectRecordings = (
  project: Project,
  filters: RecordingFilters,
  page: { readonly limit: number; readonly offset: number }
) =>
  Effect.gen(function* () {
    const rows = yield* (yield* QueryRunner).select(project, recordingsQuery(filters, context(project), page))
    const recordings = yield* recordingsOf(
      project.id,
      rows.slice(0, page.limit).map((row) => String(row[0]))
    )
    return { recordings, hasNext: rows.length > page.limit }
  })

/** The metadata of those of these sessions that have a recording, in the order given. */
export const recordingsOf = (projectId: number, sessionIds: ReadonlyArray<string>) =>
  Effect.map(
    Effect.flatMap(RecordingStore, (store) => store.getMany(projectId, sessionIds)),
    (metas) => {
      const found = new Map(metas.map((r) => [r.session_id, r]))
      return sessionIds.flatMap((id) => found.get(id) ?? [])
    }
  )

import { Chunk, Effect, Option, Stream } from "effect"
import { ProjectSettings, type Project } from "../domain/models.js"
import { ActionStore } from "../services/ActionStore.js"
import { AnnotationStore } from "../services/AnnotationStore.js"
import { CohortStore } from "../services/CohortStore.js"
import { EventStore } from "../services/EventStore.js"
import { FlagStore } from "../services/FlagStore.js"
import { InsightStore } from "../services/InsightStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { PropertyDefinitions } from "../services/PropertyDefinitions.js"
import type { StorageError } from "../services/StorageError.js"
import { VERSION } from "../version.js"
import { type RecordType, TRANSFER_FORMAT, TRANSFER_VERSION, transferLine } from "./format.js"

// A project written out as the transfer format's lines, read a page at a time (events and persons
// by keyset, the list's own order), so a project of any size streams through bounded memory.

/** Rows read at a time. */
export const TRANSFER_PAGE = 1_000

type Data = Record<string, unknown>

/** A list read a page at a time from `start` until a short page; `next` is where the page after `rows` starts. */
const pages = <A, C, R>(
  start: C,
  read: (cursor: C) => Effect.Effect<ReadonlyArray<A>, StorageError, R>,
  next: (cursor: C, rows: ReadonlyArray<A>) => C
): Stream.Stream<A, StorageError, R> =>
  Stream.paginateChunkEffect(start, (cursor) =>
    Effect.map(read(cursor), (rows) => [
      Chunk.fromIterable(rows),
      rows.length < TRANSFER_PAGE ? Option.none() : Option.some(next(cursor, rows))
    ])
  )

/** By keyset: the cursor is the last row's key. */
const keyset = <A, K, R>(
  read: (beyond: K | undefined) => Effect.Effect<ReadonlyArray<A>, StorageError, R>,
  key: (row: A) => K
) => pages<A, K | undefined, R>(undefined, read, (_, rows) => key(rows[rows.length - 1]!))

/** By offset, for the small lists (entities a user made) that have no keyset. */
const offsetPages = <A, R>(read: (offset: number) => Effect.Effect<ReadonlyArray<A>, StorageError, R>) =>
  pages<A, number, R>(0, read, (offset, rows) => offset + rows.length)

const records = <A, R>(type: RecordType, rows: Stream.Stream<A, StorageError, R>, data: (row: A) => Data) =>
  Stream.map(rows, (row) => transferLine({ type, data: data(row) }))

const all = <A, R>(read: Effect.Effect<ReadonlyArray<A>, StorageError, R>) =>
  Stream.flatMap(Stream.fromEffect(read), Stream.fromIterable)

const settingsOf = (project: Project): Data => ({
  ...Object.fromEntries(Object.keys(ProjectSettings.fields).map((k) => [k, project[k as keyof Project]])),
  test_account_filters: project.test_account_filters
})

/** The project as transfer lines: the header, then its records in dependency order. */
export const exportProject = (project: Project) => {
  const id = project.id
  const header = Stream.succeed(
    transferLine({
      format: TRANSFER_FORMAT,
      version: TRANSFER_VERSION,
      zed_version: VERSION,
      exported_at: new Date().toISOString(),
      project: { id, name: project.name, timezone: project.timezone, settings: settingsOf(project) }
    })
  )
  const definitions = Stream.unwrap(
    Effect.map(PropertyDefinitions, (d) =>
      Stream.concat(
        records("event_definition", all(d.listEvents(id)), (e) => ({ ...e })),
        records("property_definition", all(d.list(id)), (p) => ({ ...p }))
      )
    )
  )
  const persons = Stream.unwrap(
    Effect.map(PersonStore, (store) =>
      records(
        "person",
        keyset(
          (beyond: { created_at: Date; id: number } | undefined) =>
            Effect.map(
              store.list(id, { properties: [], limit: TRANSFER_PAGE, offset: 0, beyond }),
              (page) => page.results
            ),
          (p) => ({ created_at: p.created_at, id: p.id })
        ),
        ({ id: _, version: __, ...person }) => person
      )
    )
  )
  const events = Stream.unwrap(
    Effect.map(EventStore, (store) =>
      records(
        "event",
        keyset(
          (beyond: { timestamp: Date; uuid: string } | undefined) =>
            store.list(id, { limit: TRANSFER_PAGE, offset: 0, beyond }),
          (e) => ({ timestamp: e.timestamp, uuid: e.uuid })
        ),
        (e) => ({ ...e })
      )
    )
  )
  const actions = Stream.unwrap(Effect.map(ActionStore, (s) => records("action", all(s.all(id)), (a) => ({ ...a }))))
  const cohorts = Stream.unwrap(
    Effect.map(CohortStore, (s) =>
      Stream.flatMap(all(s.all(id)), (cohort) =>
        Stream.concat(
          Stream.succeed(transferLine({ type: "cohort", data: { ...cohort } })),
          cohort.is_static
            ? records(
                "cohort_person",
                offsetPages((offset) =>
                  Effect.map(s.persons(id, cohort.id, { limit: TRANSFER_PAGE, offset }), (p) => p.results)
                ),
                (p) => ({ cohort: cohort.id, person: p.uuid })
              )
            : Stream.empty
        )
      )
    )
  )
  const flags = Stream.unwrap(Effect.map(FlagStore, (s) => records("flag", all(s.all(id)), (f) => ({ ...f }))))
  const insights = Stream.unwrap(
    Effect.map(InsightStore, (s) =>
      records(
        "insight",
        offsetPages((offset) => Effect.map(s.list(id, { limit: TRANSFER_PAGE, offset }), (p) => p.results)),
        (i) => ({ ...i })
      )
    )
  )
  const dashboards = Stream.unwrap(
    Effect.map(InsightStore, (s) =>
      Stream.mapEffect(
        offsetPages((offset) => Effect.map(s.listDashboards(id, { limit: TRANSFER_PAGE, offset }), (p) => p.results)),
        (dashboard) =>
          Effect.map(s.dashboardTiles(dashboard.id), (tiles) =>
            transferLine({
              type: "dashboard",
              data: {
                ...dashboard,
                tiles: tiles.filter((t) => !t.deleted).map(({ id: _, dashboard_id: __, deleted: ___, ...t }) => t)
              }
            })
          )
      )
    )
  )
  // The organization's annotations belong to every project of it, not to this one.
  const annotations = Stream.unwrap(
    Effect.map(AnnotationStore, (s) =>
      records(
        "annotation",
        Stream.filter(
          offsetPages((offset) =>
            Effect.map(
              s.list({ projectId: id, organizationId: project.organization }, { limit: TRANSFER_PAGE, offset }),
              (p) => p.results
            )
          ),
          (a) => a.scope !== "organization"
        ),
        (a) => ({ ...a })
      )
    )
  )
  return header.pipe(
    Stream.concat(definitions),
    Stream.concat(persons),
    Stream.concat(events),
    Stream.concat(actions),
    Stream.concat(cohorts),
    Stream.concat(flags),
    Stream.concat(insights),
    Stream.concat(dashboards),
    Stream.concat(annotations)
  )
}

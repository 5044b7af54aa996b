import { Effect, Schema } from "effect"
import { PersonCache } from "../../ingest/personCache.js"
import { EventStore } from "../../services/EventStore.js"
import { PersonStore } from "../../services/PersonStore.js"
import { RecordingStore } from "../../services/RecordingStore.js"
import { csvCell, Format } from "../csv.js"
import { Paginated, paginated, toPage } from "../../domain/pagination.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"
import { findPerson, ListParams, Person, toWire } from "../wire/persons.js"
import { isTrue, QueryFlag } from "../../schema/fields.js"

// Persons are read and deleted here; they are created and changed only by capture ($set, $unset,
// identify, alias), as in PostHog.

const PersonRef = Schema.Struct({ id: Schema.String })

const list = environmentRoute({
  method: "GET",
  path: "/persons",
  tag: "persons",
  summary: "List persons",
  description: "Newest first. Filters combine with AND.",
  scope: "person:read",
  query: ListParams,
  response: Paginated(Person, "PaginatedPersonList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* PersonStore).list(project.id, {
        distinct_id: query.distinct_id,
        email: query.email,
        search: query.search,
        properties: query.properties ?? [],
        ...page
      })
      return paginated(request.url, page, count, results.map(toWire))
    })
})

const values = environmentRoute({
  method: "GET",
  path: "/persons/values",
  tag: "persons",
  summary: "Values of a person property",
  description:
    "The most common values of property `key` (up to 100), optionally only those containing `value`, with how many persons have each.",
  scope: "person:read",
  query: Schema.Struct({
    key: Schema.String.annotations({ description: "Property name." }),
    value: Schema.optional(
      Schema.String.annotations({ description: "Only values containing this text (case-insensitive)." })
    ),
    format: Format
  }),
  response: Schema.Array(Schema.Struct({ name: Schema.Unknown, count: Schema.Int })),
  handler: ({ project, query }) =>
    Effect.gen(function* () {
      const rows = (yield* (yield* PersonStore).values(project.id, query.key, query.value)).map(({ count, value }) => ({
        name: value,
        count
      }))
      if (query.format !== "csv") return rows
      const csv = ["name,count", ...rows.map((r) => `${csvCell(r.name)},${r.count}`)].join("\r\n") + "\r\n"
      return new Reply(200, csv, { "content-type": "text/csv; charset=utf-8" })
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/persons/:id",
  tag: "persons",
  summary: "Retrieve a person",
  description: "By numeric id or uuid.",
  scope: "person:read",
  params: PersonRef,
  response: Person,
  handler: ({ params, project }) => Effect.map(findPerson(project.id, params.id), toWire)
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/persons/:id",
  tag: "persons",
  summary: "Delete a person",
  description:
    "Removes the person, their distinct ids and static cohort memberships (a later event with one of them starts a new person). " +
    "With `delete_events=true` their events and session recordings are deleted too, before this answers; `delete_recordings` chooses for recordings on its own.",
  scope: "person:write",
  params: PersonRef,
  query: Schema.Struct({
    delete_events: Schema.optional(QueryFlag.annotations({ description: "Also delete the person's events." })),
    delete_recordings: Schema.optional(
      QueryFlag.annotations({
        description: "Also delete the recordings made under the person's distinct ids (default: as delete_events)."
      })
    )
  }),
  status: 202,
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      const person = yield* findPerson(project.id, params.id)
      const deleteEvents = isTrue(query.delete_events)
      const deleteRecordings = query.delete_recordings === undefined ? deleteEvents : isTrue(query.delete_recordings)
      // Recordings are found by the person's distinct ids, so before these go.
      const recordings = yield* RecordingStore
      const sessions = deleteRecordings ? yield* recordings.sessionsOf(project.id, person.distinct_ids) : []
      for (const session of sessions) yield* recordings.remove(project.id, session)
      yield* (yield* PersonStore).remove(project.id, person.id)
      ;(yield* PersonCache).forget(project.id)
      const events = deleteEvents ? yield* (yield* EventStore).deleteByPerson(project.id, person.uuid) : 0
      if (deleteEvents || deleteRecordings)
        yield* Effect.logInfo("person deleted with their data", {
          person: person.uuid,
          events,
          recordings: sessions.length
        })
      return Reply.empty(202)
    })
})

export const personRoutes = [list, values, retrieve, remove]

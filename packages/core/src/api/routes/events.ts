import { Effect, Option, Schema } from "effect"
import { isUuid } from "../../ingest/uuid.js"
import { sortDistinctIds } from "../../persons/model.js"
import { EventStore, type StoredEvent } from "../../services/EventStore.js"
import { PersonStore } from "../../services/PersonStore.js"
import { NotFound } from "../errors.js"
import { PropertyFiltersParam } from "../propertyFiltersParam.js"
import { environmentRoute } from "../route.js"
import { check, Instant, IntFromString } from "../../schema/fields.js"
import { findPerson } from "../wire/persons.js"

// PostHog's legacy events API: raw events read back, newest first. PostHog keeps it for backwards
// compatibility and so does Zed; it is how stored events (flag calls among them) are looked up.

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 10_000
const MAX_OFFSET = 50_000
const DAY_MS = 24 * 60 * 60 * 1000

const ListParams = Schema.Struct({
  event: Schema.optional(
    Schema.String.annotations({ description: "Only events with this name, e.g. `$feature_flag_called`." })
  ),
  distinct_id: Schema.optional(Schema.String),
  person_id: Schema.optional(Schema.String.annotations({ description: "A person's numeric id or uuid." })),
  after: Schema.optional(Instant.annotations({ description: "Only events after this time (default: 24 hours ago)." })),
  before: Schema.optional(Instant.annotations({ description: "Only events before this time." })),
  properties: Schema.optional(PropertyFiltersParam),
  limit: Schema.optional(
    IntFromString(1).annotations({ description: `Results per page (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}).` })
  ),
  offset: Schema.optional(
    IntFromString(0).pipe(
      check(
        (n: number) => n <= MAX_OFFSET,
        "max_value",
        `Offsets above ${MAX_OFFSET} are not served: page with \`before\` (the \`next\` link does).`
      )
    )
  )
})

const EventPerson = Schema.Struct({
  is_identified: Schema.Boolean,
  distinct_ids: Schema.Array(Schema.String),
  properties: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const Event = Schema.Struct({
  id: Schema.String,
  event: Schema.String,
  distinct_id: Schema.String,
  properties: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  timestamp: Schema.Date,
  person: Schema.NullOr(EventPerson)
}).annotations({ identifier: "Event" })

const EventList = Schema.Struct({
  next: Schema.NullOr(Schema.String),
  results: Schema.Array(Event)
}).annotations({ identifier: "EventList" })

/** Events with the persons they belong to now (one lookup for the page). */
const present = (projectId: number, events: ReadonlyArray<StoredEvent>) =>
  Effect.gen(function* () {
    const persons = yield* (yield* PersonStore).getMany(projectId, [...new Set(events.map((e) => e.person_id))])
    const byUuid = new Map(persons.map((p) => [p.uuid, p]))
    return events.map((e): typeof Event.Type => {
      const person = byUuid.get(e.person_id)
      return {
        id: e.uuid,
        event: e.event,
        distinct_id: e.distinct_id,
        properties: e.properties,
        timestamp: e.timestamp,
        person:
          person === undefined
            ? null
            : {
                is_identified: person.is_identified,
                distinct_ids: sortDistinctIds(person.distinct_ids),
                properties: person.properties
              }
      }
    })
  })

/**
 * The next page continues below the last event's millisecond. Events sharing it are skipped by
 * offset, so ties at a page boundary are neither lost nor repeated.
 */
const nextLink = (url: URL, events: ReadonlyArray<StoredEvent>, before: Date | undefined, offset: number) => {
  const last = events.at(-1)!.timestamp.getTime()
  const sameInstant = events.filter((e) => e.timestamp.getTime() === last).length
  const link = new URL(url)
  const bound = new Date(last + 1)
  link.searchParams.set("before", bound.toISOString())
  const nextOffset = before?.getTime() === bound.getTime() ? offset + events.length : sameInstant
  link.searchParams.set("offset", String(nextOffset))
  return link.toString()
}

const list = environmentRoute({
  method: "GET",
  path: "/events",
  tag: "events",
  summary: "List events",
  description:
    "Newest first; filters combine with AND. Without `after`, only the last 24 hours. " +
    "Follow `next` for older events. For aggregates, use the query API.",
  scope: "query:read",
  query: ListParams,
  response: EventList,
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const person =
        query.person_id === undefined
          ? undefined
          : yield* findPerson(project.id, query.person_id).pipe(
              Effect.map(Option.some),
              Effect.catchTag("NotFound", () => Effect.succeed(Option.none()))
            )
      // A person that does not exist (any more) has no events.
      if (person !== undefined && Option.isNone(person)) return { next: null, results: [] }
      const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT)
      const offset = query.offset ?? 0
      const events = yield* (yield* EventStore).list(project.id, {
        event: query.event,
        distinct_id: query.distinct_id,
        person_id: person === undefined ? undefined : Option.getOrThrow(person).uuid,
        after: query.after ?? new Date(Date.now() - DAY_MS),
        before: query.before,
        properties: query.properties ?? [],
        limit,
        offset
      })
      return {
        next: events.length === limit ? nextLink(request.url, events, query.before, offset) : null,
        results: yield* present(project.id, events)
      }
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/events/:id",
  tag: "events",
  summary: "Retrieve an event",
  description: "By the event's uuid.",
  scope: "query:read",
  params: Schema.Struct({ id: Schema.String }),
  response: Event,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const found = isUuid(params.id)
        ? (yield* (yield* EventStore).list(project.id, { uuid: params.id.toLowerCase(), limit: 1, offset: 0 }))[0]
        : undefined
      const event = yield* Option.match(Option.fromNullable(found), {
        onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
        onSome: Effect.succeed
      })
      return (yield* present(project.id, [event]))[0]!
    })
})

export const eventRoutes = [list, retrieve]

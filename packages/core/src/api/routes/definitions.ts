import { Effect, Option, Schema, Struct } from "effect"
import {
  EventDefinition as EventEntity,
  PROPERTY_TYPES,
  PropertyDefinitionRecord as PropertyEntity,
  type StoredEventDefinition,
  type StoredPropertyDefinition,
  verification
} from "../../definitions/definitionEntity.js"
import {
  EVENT_ORDERINGS,
  EVENT_TYPES,
  type ListedProperty,
  SESSION_PROPERTIES,
  selectEvents,
  selectProperties
} from "../../definitions/listing.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { QueryRunner } from "../../queries/runner.js"
import { EventStore } from "../../services/EventStore.js"
import { PropertyDefinitions } from "../../services/PropertyDefinitions.js"
import type { StorageError } from "../../services/StorageError.js"
import { IntFromString, isTrue, QueryFlag } from "../../schema/fields.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { NotFound } from "../errors.js"
import { environmentRoute } from "../route.js"

// Event and property definitions (PostHog's `/event_definitions/` and `/property_definitions/`):
// what ingestion has recorded, with what users describe them by. Lists are selected and ordered by
// definitions/listing.ts; an event's 30-day volume is counted for the page listed.

const EVENTS_TAG = "event definitions"
const PROPERTIES_TAG = "property definitions"
const VOLUME_DAYS = 30

const notFound = () => new NotFound({ detail: "Not found." })

const Ref = Schema.Struct({ id: Schema.String })

const Tags = Schema.Array(Schema.String.pipe(Schema.maxLength(255)))

const Described = {
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(8000))),
  tags: Schema.optional(Tags),
  verified: Schema.optional(Schema.Boolean),
  hidden: Schema.optional(Schema.Boolean)
}

const EventDefinition = Schema.Struct({
  ...Struct.pick(EventEntity.fields, "id", "name", "description", "tags", "verified", "hidden"),
  verified_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.NullOr(Schema.Date),
  last_seen_at: Schema.NullOr(Schema.Date),
  volume_30_day: Schema.NullOr(Schema.Int).annotations({ description: "Events of this name in the last 30 days." }),
  query_usage_30_day: Schema.Null,
  is_action: Schema.Boolean
}).annotations({ identifier: "EventDefinition" })

const PropertyType = Schema.Literal(...PROPERTY_TYPES)

const PropertyDefinition = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  ...Struct.pick(PropertyEntity.fields, "description", "tags", "verified", "hidden"),
  verified_at: Schema.NullOr(Schema.Date),
  updated_at: Schema.NullOr(Schema.Date),
  is_numerical: Schema.Boolean,
  property_type: Schema.NullOr(PropertyType),
  type: Schema.Literal("event", "person", "group", "session"),
  group_type_index: Schema.NullOr(Schema.Int),
  is_seen_on_filtered_events: Schema.NullOr(Schema.Boolean).annotations({
    description: "Whether it was seen with the events `event_names` gave; null when none were given."
  }),
  volume_30_day: Schema.Null,
  query_usage_30_day: Schema.Null
}).annotations({ identifier: "PropertyDefinition" })

/** A definition's wire form: for the sessions table's fixed fields, the field's name is its id. */
const presentProperty = (
  definition: StoredPropertyDefinition | ListedProperty,
  seen: boolean | null
): typeof PropertyDefinition.Type => {
  const stored = "id" in definition ? (definition as StoredPropertyDefinition) : undefined
  return {
    id: stored?.id ?? definition.key,
    name: definition.key,
    description: stored?.description ?? "",
    tags: stored?.tags ?? [],
    verified: stored?.verified ?? false,
    verified_at: stored?.verified_at ?? null,
    hidden: definition.hidden,
    updated_at: stored?.updated_at ?? null,
    is_numerical: definition.propertyType === "Numeric",
    property_type: definition.propertyType,
    type: stored?.owner ?? "session",
    group_type_index: stored?.groupTypeIndex ?? null,
    is_seen_on_filtered_events: seen,
    volume_30_day: null,
    query_usage_30_day: null
  }
}

const presentEvents = (projectId: number, definitions: ReadonlyArray<StoredEventDefinition>) =>
  Effect.gen(function* () {
    const since = new Date(Date.now() - VOLUME_DAYS * 86_400_000)
    const volumes = yield* (yield* EventStore).volumes(
      projectId,
      definitions.map((d) => d.name),
      since
    )
    return definitions.map((d): typeof EventDefinition.Type => ({
      ...d,
      volume_30_day: volumes.get(d.name) ?? 0,
      query_usage_30_day: null,
      is_action: false
    }))
  })

/** The definition a store lists with this id, else 404. */
const find = <D extends { readonly id: string }>(
  list: (store: PropertyDefinitions["Type"]) => Effect.Effect<ReadonlyArray<D>, StorageError>,
  id: string
) =>
  Effect.flatMap(Effect.flatMap(PropertyDefinitions, list), (all) => {
    const found = all.find((d) => d.id === id)
    return found === undefined ? Effect.fail(notFound()) : Effect.succeed(found)
  })

const findEvent = (projectId: number, id: string) => find((d) => d.listEvents(projectId), id)
const findProperty = (projectId: number, id: string) => find((d) => d.list(projectId), id)

/**
 * What a change sets besides its fields: a definition is not hidden and verified at once (asking for
 * both is refused), so hiding one unverifies it and verifying one shows it; verifying stamps when.
 */
const describedChange = (
  current: { readonly verified: boolean; readonly hidden: boolean },
  body: { readonly verified?: boolean | undefined; readonly hidden?: boolean | undefined }
) => {
  if (body.verified === true && body.hidden === true)
    return Effect.fail(
      new ValidationError({
        code: "invalid_input",
        detail: "A definition cannot be both hidden and verified.",
        attr: "hidden"
      })
    )
  const verified = body.hidden === true ? false : body.verified
  const hidden = body.verified === true ? false : body.hidden
  return Effect.succeed({ verified, hidden, ...verification(current, verified, new Date()) })
}

const JsonNames = Schema.parseJson(Schema.Array(Schema.String))

const listEvents = environmentRoute({
  method: "GET",
  path: "/event_definitions",
  tag: EVENTS_TAG,
  summary: "List event definitions",
  description:
    "Every event name ingestion has recorded. `search` keeps names holding each of its words (ignoring case); `event_type` keeps PostHog's own events (`posthog`, named with a leading `$`) or the others (`custom`).",
  scope: "event_definition:read",
  query: Schema.Struct({
    ...PageParams.fields,
    search: Schema.optional(Schema.String),
    event_type: Schema.optional(Schema.Literal(...EVENT_TYPES)),
    exclude_hidden: Schema.optional(QueryFlag),
    ordering: Schema.optional(Schema.Literal(...EVENT_ORDERINGS))
  }),
  response: Paginated(EventDefinition, "PaginatedEventDefinitionList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const selected = selectEvents(yield* (yield* PropertyDefinitions).listEvents(project.id), {
        search: query.search,
        eventType: query.event_type ?? "all",
        excludeHidden: isTrue(query.exclude_hidden),
        ordering: query.ordering ?? "name"
      })
      const results = yield* presentEvents(project.id, selected.slice(page.offset, page.offset + page.limit))
      return paginated(request.url, page, selected.length, results)
    })
})

const retrieveEvent = environmentRoute({
  method: "GET",
  path: "/event_definitions/:id",
  tag: EVENTS_TAG,
  summary: "Retrieve an event definition",
  scope: "event_definition:read",
  params: Ref,
  response: EventDefinition,
  handler: ({ params, project }) =>
    Effect.flatMap(findEvent(project.id, params.id), (d) => Effect.map(presentEvents(project.id, [d]), (r) => r[0]!))
})

const updateEvent = environmentRoute({
  method: "PATCH",
  path: "/event_definitions/:id",
  tag: EVENTS_TAG,
  summary: "Describe an event definition",
  description: "Sets its description, tags, and whether it is verified or hidden (not both).",
  scope: "event_definition:write",
  params: Ref,
  body: Schema.Struct(Described).annotations({ identifier: "EventDefinitionUpdate" }),
  response: EventDefinition,
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const current = yield* findEvent(project.id, params.id)
      const change = yield* describedChange(current, body)
      const saved = yield* Effect.flatMap(
        (yield* PropertyDefinitions).updateEvent(project.id, params.id, { ...body, ...change }),
        Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
      )
      return (yield* presentEvents(project.id, [saved]))[0]!
    })
})

const listProperties = environmentRoute({
  method: "GET",
  path: "/property_definitions",
  tag: PROPERTIES_TAG,
  summary: "List property definitions",
  description:
    "Properties of events (`type=event`, the default), persons, groups (with `group_type_index`) or sessions (the sessions table's fields). " +
    "`event_names` (a JSON array) marks those seen with any of these events (`is_seen_on_filtered_events`) and lists them first; with `filter_by_event_names=true` only they are listed. " +
    "`properties` (comma-separated) keeps only these names, `excluded_properties` (a JSON array) drops these.",
  scope: "property_definition:read",
  query: Schema.Struct({
    ...PageParams.fields,
    search: Schema.optional(Schema.String),
    type: Schema.optional(Schema.Literal("event", "person", "group", "session")),
    group_type_index: Schema.optional(IntFromString(0, 4)),
    event_names: Schema.optional(JsonNames),
    filter_by_event_names: Schema.optional(QueryFlag),
    is_numerical: Schema.optional(QueryFlag),
    properties: Schema.optional(Schema.String),
    excluded_properties: Schema.optional(JsonNames),
    exclude_hidden: Schema.optional(QueryFlag)
  }),
  response: Paginated(PropertyDefinition, "PaginatedPropertyDefinitionList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const type = query.type ?? "event"
      if (type === "group" && query.group_type_index === undefined)
        return yield* new ValidationError({
          code: "required",
          detail: "group_type_index is required for group properties.",
          attr: "group_type_index"
        })
      const definitions = yield* PropertyDefinitions
      const candidates: ReadonlyArray<StoredPropertyDefinition | ListedProperty> =
        type === "session"
          ? SESSION_PROPERTIES
          : (yield* definitions.list(project.id)).filter(
              (d) => d.owner === type && (type !== "group" || d.groupTypeIndex === query.group_type_index)
            )
      const seen =
        type === "event" && query.event_names !== undefined && query.event_names.length > 0
          ? yield* definitions.seenWith(project.id, query.event_names)
          : undefined
      const page = toPage(query)
      const selected = selectProperties(candidates, {
        search: query.search,
        isNumerical: query.is_numerical === undefined ? undefined : isTrue(query.is_numerical),
        keys: query.properties === undefined ? undefined : new Set(query.properties.split(",")),
        excluded: new Set(query.excluded_properties ?? []),
        excludeHidden: isTrue(query.exclude_hidden),
        seen,
        onlySeen: isTrue(query.filter_by_event_names)
      })
      return paginated(
        request.url,
        page,
        selected.length,
        selected.slice(page.offset, page.offset + page.limit).map((s) => presentProperty(s.definition, s.seen))
      )
    })
})

const retrieveProperty = environmentRoute({
  method: "GET",
  path: "/property_definitions/:id",
  tag: PROPERTIES_TAG,
  summary: "Retrieve a property definition",
  scope: "property_definition:read",
  params: Ref,
  response: PropertyDefinition,
  handler: ({ params, project }) => Effect.map(findProperty(project.id, params.id), (d) => presentProperty(d, null))
})

const updateProperty = environmentRoute({
  method: "PATCH",
  path: "/property_definitions/:id",
  tag: PROPERTIES_TAG,
  summary: "Describe a property definition, or change its type",
  description:
    "Sets its description, tags, whether it is verified or hidden (not both), and its `property_type`, which decides how ZedQL reads the property from then on (see the data management guide).",
  scope: "property_definition:write",
  params: Ref,
  body: Schema.Struct({ ...Described, property_type: Schema.optional(PropertyType) }).annotations({
    identifier: "PropertyDefinitionUpdate"
  }),
  response: PropertyDefinition,
  handler: ({ body: { property_type, ...body }, params, project }) =>
    Effect.gen(function* () {
      const current = yield* findProperty(project.id, params.id)
      const change = yield* describedChange(current, body)
      const saved = yield* Effect.flatMap(
        (yield* PropertyDefinitions).updateProperty(project.id, params.id, {
          ...body,
          ...change,
          propertyType: property_type
        }),
        Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
      )
      if (property_type !== undefined && property_type !== current.propertyType)
        yield* (yield* QueryRunner).definitionsChanged(project.id)
      return presentProperty(saved, null)
    })
})

export const definitionRoutes = [
  listEvents,
  retrieveEvent,
  updateEvent,
  listProperties,
  retrieveProperty,
  updateProperty
]

import { Effect, Option, ParseResult, Schema, Stream, Struct } from "effect"
import { ActionInsert } from "../actions/actionEntity.js"
import { AnnotationInsert } from "../annotations/annotationEntity.js"
import { generateProjectApiKey } from "../domain/keys.js"
import type { Project } from "../domain/models.js"
import { isObject } from "../domain/json.js"
import { PropertyDefinitionRecord } from "../definitions/definitionEntity.js"
import { CohortInsert, type NewCohort } from "../flags/cohortEntity.js"
import { FlagInsert, type NewFlag } from "../flags/flagEntity.js"
import { isRecordedKey } from "../ingest/propertyTypes.js"
import { DashboardInsert } from "../insights/dashboardEntity.js"
import { InsightInsert } from "../insights/insightEntity.js"
import type { PersonDraft } from "../persons/processor.js"
import { ActionStore } from "../services/ActionStore.js"
import { AnnotationStore } from "../services/AnnotationStore.js"
import { CohortStore } from "../services/CohortStore.js"
import { EventStore, type StoredEvent } from "../services/EventStore.js"
import { FlagStore } from "../services/FlagStore.js"
import { InsightStore } from "../services/InsightStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { PropertyDefinitions } from "../services/PropertyDefinitions.js"
import { Transactor } from "../services/Transactor.js"
import {
  RECORD_TYPES,
  type RecordType,
  TRANSFER_FORMAT,
  TRANSFER_VERSION,
  TransferError,
  type TransferHeader
} from "./format.js"
import { remapIds } from "./remap.js"

// Reads a transfer stream into a project: the header first, then records in the order written,
// persons and events in batches. Persons and events keep their uuids, so importing the same stream
// again stores no event twice and no person twice. Entities get the target's ids, and the ids they
// hold of each other are remapped (see remap.ts); a flag whose key or an insight whose short id the
// target has already is taken for the one imported (both are unique in a project), other entities
// are added. Authors are not carried over (users differ between installs).

/** Persons or events written at a time. */
const BATCH = 500

export interface ImportSummary {
  readonly project: Project
  /** Records read, by type. */
  readonly read: Readonly<Record<string, number>>
  /** Events stored (those the project had already are skipped). */
  readonly events: number
}

type Data = Record<string, unknown>

/** The project records go to: a new one named as the source, or `target`. */
export type ImportTarget = { readonly organization: string } | { readonly project: Project }

const date = (v: unknown): Date | null => (typeof v === "string" ? new Date(v) : null)

export const importProject = <E, R>(target: ImportTarget, lines: Stream.Stream<string, E, R>) =>
  Effect.gen(function* () {
    const projects = yield* ProjectStore
    const persons = yield* PersonStore
    const events = yield* EventStore
    const definitions = yield* PropertyDefinitions
    const actions = yield* ActionStore
    const cohorts = yield* CohortStore
    const flags = yield* FlagStore
    const insights = yield* InsightStore
    const annotations = yield* AnnotationStore
    const transactor = yield* Transactor

    let lineNo = 0
    let project: Project | undefined
    const read: Record<string, number> = {}
    let stored = 0
    const maps = {
      cohort: new Map<number, number>(),
      action: new Map<number, number>(),
      flag: new Map<number, number>()
    }
    const insightIds = new Map<number, number>()
    const dashboardIds = new Map<number, number>()
    // Cohorts and flags may refer to ones later in the stream: their filters are remapped again at the end.
    const referring: Array<{ kind: "cohort" | "flag"; id: number; filters: unknown; stored: string }> = []
    let personBatch: Array<typeof PersonRecord.Type> = []
    let eventBatch: Array<StoredEvent> = []
    let cohortPersons: Array<{ cohort: number; person: string }> = []

    const fail = (detail: string) => new TransferError({ line: lineNo, detail })
    const decode = <A, I>(schema: Schema.Schema<A, I>, data: unknown) =>
      Schema.decodeUnknown(schema)(data).pipe(
        Effect.mapError((e) => fail(ParseResult.TreeFormatter.formatErrorSync(e)))
      )

    const begin = (header: unknown) =>
      Effect.gen(function* () {
        if (!isObject(header) || header["format"] !== TRANSFER_FORMAT)
          return yield* fail(`not a ${TRANSFER_FORMAT} stream: its first line must be the header`)
        const version = header["version"]
        if (typeof version !== "number" || version > TRANSFER_VERSION)
          return yield* fail(`format version ${String(version)} is newer than this Zed reads (${TRANSFER_VERSION})`)
        const source = (header as unknown as TransferHeader).project
        if ("project" in target) return target.project
        const made = yield* projects.create({
          organization: target.organization,
          name: source.name,
          timezone: source.timezone,
          api_token: generateProjectApiKey()
        })
        return Option.getOrElse(yield* projects.update(made.id, source.settings), () => made)
      })

    const writePersons = (p: Project) =>
      Effect.gen(function* () {
        if (personBatch.length === 0) return
        const batch = personBatch
        personBatch = []
        yield* transactor.transaction(
          Effect.gen(function* () {
            const known = new Set(
              (yield* persons.getMany(
                p.id,
                batch.map((b) => b.uuid)
              )).map((x) => x.uuid)
            )
            const ids = batch.flatMap((b) => b.distinct_ids)
            const owned = new Set((yield* persons.load(p.id, ids)).flatMap((x) => x.distinct_ids))
            const drafts: Array<PersonDraft> = batch
              .filter((b) => !known.has(b.uuid))
              .map((b) => ({
                id: undefined,
                uuid: b.uuid,
                properties: { ...b.properties },
                is_identified: b.is_identified,
                created_at: b.created_at,
                version: 0,
                // A distinct id the target gave another person already stays that person's.
                distinct_ids: b.distinct_ids.filter((d) => !owned.has(d)),
                changed: true,
                merged: false,
                stored_ids: new Set()
              }))
            if (drafts.length === 0) return
            yield* persons.save(p.id, {
              created: drafts,
              updated: [],
              claimed: drafts.flatMap((person) => person.distinct_ids.map((distinct_id) => ({ distinct_id, person }))),
              moved: [],
              deleted: [],
              repoint: []
            })
          })
        )
      })

    const writeEvents = (p: Project) =>
      Effect.gen(function* () {
        if (eventBatch.length === 0) return
        const batch = eventBatch
        eventBatch = []
        stored += (yield* events.insert(p.id, batch)).size
        // The properties seen with each event name, as ingestion links them.
        const seen = new Map<string, { seenAt: Date; properties: Set<string> }>()
        for (const e of batch) {
          const entry = seen.get(e.event) ?? { seenAt: e.timestamp, properties: new Set<string>() }
          if (entry.seenAt < e.timestamp) entry.seenAt = e.timestamp
          for (const key of Object.keys(e.properties)) if (isRecordedKey("event", key)) entry.properties.add(key)
          seen.set(e.event, entry)
        }
        yield* definitions.recordEvents(
          p.id,
          [...seen].map(([name, s]) => ({ name, seenAt: s.seenAt, properties: [...s.properties] }))
        )
      })

    const writeCohortPersons = (p: Project) =>
      Effect.gen(function* () {
        const byCohort = new Map<number, Array<string>>()
        for (const { cohort, person } of cohortPersons) {
          const to = maps.cohort.get(cohort)
          if (to !== undefined) byCohort.set(to, [...(byCohort.get(to) ?? []), person])
        }
        cohortPersons = []
        for (const [cohort, uuids] of byCohort) yield* cohorts.addPersons(p.id, cohort, uuids)
      })

    const flush = (p: Project) =>
      Effect.all([writePersons(p), writeEvents(p), writeCohortPersons(p)], { discard: true })

    const take = (p: Project, type: RecordType, data: Data) =>
      Effect.gen(function* () {
        switch (type) {
          case "event_definition": {
            const name = String(data["name"])
            const seenAt = date(data["last_seen_at"]) ?? date(data["created_at"]) ?? new Date()
            yield* definitions.recordEvents(p.id, [{ name, seenAt, properties: [] }])
            const found = (yield* definitions.listEvents(p.id)).find((d) => d.name === name)
            if (found !== undefined) yield* definitions.updateEvent(p.id, found.id, described(data))
            return
          }
          case "property_definition": {
            const { groupTypeIndex, key, owner, propertyType } = yield* decode(PropertyKey, data)
            yield* definitions.record(p.id, [{ owner, key, propertyType, groupTypeIndex }])
            const found = (yield* definitions.list(p.id)).find(
              (d) => d.owner === owner && d.key === key && d.groupTypeIndex === groupTypeIndex
            )
            if (found !== undefined)
              yield* definitions.updateProperty(p.id, found.id, { ...described(data), propertyType })
            return
          }
          case "person":
            personBatch.push(yield* decode(PersonRecord, data))
            if (personBatch.length >= BATCH) yield* writePersons(p)
            return
          case "event":
            eventBatch.push(yield* decode(EventRecord, data))
            if (eventBatch.length >= BATCH) yield* writeEvents(p)
            return
          case "action": {
            const made = yield* actions.create(p.id, yield* decode(ActionInsert, { ...data, created_by: null }))
            maps.action.set(Number(data["id"]), made.id)
            return
          }
          case "cohort": {
            const cohort = yield* decode(CohortInsert, { ...data, created_by: null })
            const properties = remapIds(cohort.properties, maps) as typeof cohort.properties
            const made = yield* cohorts.create(p.id, { ...cohort, properties })
            maps.cohort.set(Number(data["id"]), made.id)
            referring.push({
              kind: "cohort",
              id: made.id,
              filters: cohort.properties,
              stored: JSON.stringify(properties)
            })
            return
          }
          case "cohort_person":
            cohortPersons.push({ cohort: Number(data["cohort"]), person: String(data["person"]) })
            if (cohortPersons.length >= BATCH) yield* writeCohortPersons(p)
            return
          case "flag": {
            const flag = yield* decode(FlagInsert, { ...data, created_by: null })
            // A flag whose key the target has already stands for this one.
            const existing = yield* flags.findByKey(p.id, flag.key)
            const filters = remapIds(flag.filters, maps) as typeof flag.filters
            const made = Option.isSome(existing) ? existing.value : yield* flags.create(p.id, { ...flag, filters })
            maps.flag.set(Number(data["id"]), made.id)
            if (Option.isNone(existing))
              referring.push({ kind: "flag", id: made.id, filters: flag.filters, stored: JSON.stringify(filters) })
            return
          }
          case "insight": {
            const insight = yield* decode(InsightInsert, { ...data, created_by: null })
            // An insight whose short id the target has already stands for this one (short ids are unique).
            const existing = (yield* insights.list(p.id, { short_id: insight.short_id, limit: 1, offset: 0 }))
              .results[0]
            const made =
              existing ??
              (yield* insights.create(p.id, {
                ...insight,
                filters: remapIds(insight.filters, maps) as typeof insight.filters,
                query: remapIds(insight.query, maps)
              }))
            insightIds.set(Number(data["id"]), made.id)
            return
          }
          case "dashboard": {
            const made = yield* insights.createDashboard(
              p.id,
              yield* decode(DashboardInsert, { ...data, created_by: null })
            )
            dashboardIds.set(Number(data["id"]), made.id)
            for (const tile of (data["tiles"] ?? []) as Array<Data>) {
              const insight =
                tile["insight_id"] === null ? null : (insightIds.get(Number(tile["insight_id"])) ?? undefined)
              if (insight === undefined) continue
              yield* insights.addTile(made.id, {
                insight_id: insight,
                text: (tile["text"] ?? null) as string | null,
                layouts: (tile["layouts"] ?? {}) as Record<string, unknown>,
                color: (tile["color"] ?? null) as string | null
              })
            }
            return
          }
          case "annotation": {
            const annotation = yield* decode(AnnotationInsert, {
              ...data,
              date_marker: date(data["date_marker"]),
              created_by: null
            })
            yield* annotations.create(
              { projectId: p.id, organizationId: p.organization },
              {
                ...annotation,
                dashboard_item:
                  annotation.dashboard_item === null ? null : (insightIds.get(annotation.dashboard_item) ?? null),
                dashboard_id:
                  annotation.dashboard_id === null ? null : (dashboardIds.get(annotation.dashboard_id) ?? null)
              }
            )
            return
          }
        }
      })

    let last: RecordType | undefined
    yield* Stream.runForEach(lines, (text) =>
      Effect.gen(function* () {
        lineNo++
        if (text.trim() === "") return
        const value = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => fail("not JSON") })
        if (project === undefined) {
          project = yield* begin(value)
          return
        }
        if (!isObject(value) || !RECORD_TYPES.includes(value["type"] as RecordType) || !isObject(value["data"]))
          return yield* fail('a record is {"type", "data"} with a known type')
        const type = value["type"] as RecordType
        // Batches are written before records that may refer to them (a cohort's persons, an event's person).
        if (type !== last) yield* flush(project)
        last = type
        read[type] = (read[type] ?? 0) + 1
        yield* take(project, type, value["data"])
      })
    )
    if (project === undefined) return yield* fail("the stream is empty: its first line must be the header")
    const p = project
    yield* flush(p)
    for (const { kind, id, filters, stored } of referring) {
      const remapped = remapIds(filters, maps)
      if (JSON.stringify(remapped) === stored) continue
      if (kind === "cohort") yield* cohorts.update(p.id, id, { properties: remapped as NewCohort["properties"] })
      else yield* flags.update(p.id, id, { filters: remapped as NewFlag["filters"], last_modified_by: null })
    }
    return { project: p, read, events: stored } satisfies ImportSummary
  })

const Properties = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A person as the stream has it. */
const PersonRecord = Schema.Struct({
  uuid: Schema.UUID,
  distinct_ids: Schema.Array(Schema.String),
  properties: Properties,
  is_identified: Schema.Boolean,
  created_at: Schema.Date
})

/** An event as the stream has it: as stored. */
const EventRecord = Schema.Struct({
  uuid: Schema.UUID,
  event: Schema.String,
  distinct_id: Schema.String,
  person_id: Schema.UUID,
  properties: Properties,
  timestamp: Schema.Date,
  created_at: Schema.Date,
  groups: Schema.Array(Schema.NullOr(Schema.String))
})

/** What identifies a property definition. */
const PropertyKey = Schema.Struct(
  Struct.pick(PropertyDefinitionRecord.fields, "owner", "key", "propertyType", "groupTypeIndex")
)

/** What users describe a definition by, as the record has it. */
const described = (data: Data) => ({
  description: String(data["description"] ?? ""),
  tags: (data["tags"] ?? []) as Array<string>,
  verified: data["verified"] === true,
  hidden: data["hidden"] === true,
  verified_at: date(data["verified_at"])
})

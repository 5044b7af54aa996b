import { Effect, Option, Schema, Struct } from "effect"
import { Cohort as Entity, newCohort } from "../../flags/cohortEntity.js"
import { BehaviouralFilter } from "../../flags/cohortBehaviour.js"
import { CohortCalculation } from "../../flags/cohortCalculation.js"
import { cohortMembers, isCalculated } from "../../flags/cohortMembers.js"
import { FlagDefinitions } from "../../flags/definitions.js"
import type { PropertyGroup } from "../../flags/model.js"
import { FLAG_OPERATORS } from "../../flags/properties.js"
import { displayName, sortDistinctIds } from "../../persons/model.js"
import { CohortStore, type StoredCohort } from "../../services/CohortStore.js"
import { checkCohortDefinition } from "../cohortReferences.js"
import { actorsPersons, csvPersons } from "../../flags/staticCohortSources.js"
import { ActorsQueryNode, InsightActorsQueryNode } from "../../queries/actorsQuery.js"
import type { ActorsNode } from "../../queries/request.js"
import type { Project } from "../../domain/models.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { type Page, PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { environmentRoute, softDeleteOnly } from "../route.js"
import { check, PathId } from "../../schema/fields.js"

// Cohorts, usable in flag conditions, insights and ZedQL: dynamic ones defined by person properties
// (matched when used) and by behaviour (calculated in the background), static ones listing persons.

interface GroupInput {
  readonly type: "AND" | "OR"
  readonly values: ReadonlyArray<GroupInput | Schema.Schema.Type<typeof CohortFilter> | BehaviouralFilter>
}

const CohortFilter = Schema.Struct({
  key: Schema.String,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optional(
    Schema.String.pipe(
      check(
        (op: string) => op === "in" || op === "not_in" || (FLAG_OPERATORS as ReadonlyArray<string>).includes(op),
        "invalid_input",
        (op: string) => `Unknown operator "${op}".`
      )
    )
  ),
  type: Schema.optional(Schema.Literal("person", "cohort")),
  negation: Schema.optional(Schema.Boolean)
})

const Group: Schema.Schema<GroupInput> = Schema.Struct({
  type: Schema.Literal("AND", "OR"),
  values: Schema.Array(
    Schema.Union(
      Schema.suspend((): Schema.Schema<GroupInput> => Group),
      BehaviouralFilter,
      CohortFilter
    )
  )
}).annotations({ identifier: "PropertyGroup" })

const Filters = Schema.Struct({ properties: Group }).annotations({
  description: "`{properties: {type: AND|OR, values: [...]}}`"
})

const Cohort = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "description"),
  filters: Schema.NullOr(Schema.Struct({ properties: Schema.Unknown })),
  ...Struct.pick(Entity.fields, "is_static", "deleted", "version", "count", "is_calculating", "errors_calculating"),
  last_calculation: Schema.NullOr(Schema.Date),
  /** How far the running calculation is (0–1), when this process runs it. */
  calculation_progress: Schema.NullOr(Schema.Number),
  created_at: Schema.Date,
  updated_at: Schema.Date
}).annotations({ identifier: "Cohort" })

/** The response schema keeps the wire's fields of the stored cohort and drops the rest. */
const wire = (cohort: StoredCohort) =>
  Effect.map(CohortCalculation, (calculation): typeof Cohort.Type => ({
    ...cohort,
    filters: cohort.properties === null ? null : { properties: cohort.properties },
    calculation_progress: cohort.is_calculating ? (calculation.progress(cohort.id) ?? null) : null
  }))

/** A dynamic cohort's membership is calculated again after it, or a cohort it uses, changed. */
const recalculate = (projectId: number, cohortId: number) =>
  Effect.flatMap(CohortCalculation, (c) => c.request(projectId, cohortId))

const Ref = Schema.Struct({ id: PathId })

/** `true`/`false` as a multipart form sends them. */
const FormBoolean = Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, {
  strict: true,
  decode: (text) => text === "true",
  encode: (flag) => (flag ? "true" : "false")
})

const Csv = Schema.String.annotations({
  description:
    "CSV of the persons to list: a column headed `distinct_id`, `email` or `person_id`, or else distinct ids in the first column."
})

/** The uuids of the persons a CSV or a persons query names; a query that cannot be answered is the sender's mistake. */
const personsFrom = (
  project: Project,
  body: { readonly csv?: string | undefined; readonly query?: ActorsNode | undefined }
) =>
  body.csv !== undefined
    ? csvPersons(project.id, body.csv).pipe(
        Effect.catchTag(
          "CsvNamesNoOne",
          ({ column }) =>
            new ValidationError({
              code: "invalid_input",
              detail: `The CSV lists no ${column === "email" ? "e-mails" : column === "person_id" ? "person ids" : "distinct ids"}.`,
              attr: "csv"
            })
        )
      )
    : body.query !== undefined
      ? actorsPersons(project, body.query).pipe(
          Effect.catchIf(
            (error) => error._tag !== "StorageError",
            (error) =>
              new ValidationError({
                code: "invalid_input",
                detail: "detail" in error ? String(error.detail) : error.message,
                attr: "query"
              })
          )
        )
      : Effect.succeed([] as ReadonlyArray<string>)

const find = (projectId: number, id: number) =>
  Effect.flatMap(
    Effect.flatMap(CohortStore, (s) => s.get(projectId, id)),
    Option.match({
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  )

const membersOf = (project: { readonly id: number; readonly timezone: string }, cohort: StoredCohort, page: Page) =>
  cohortMembers(project.id, cohort, page, { timezone: project.timezone, now: new Date() })

const invalidate = (projectId: number) => Effect.flatMap(FlagDefinitions, (d) => d.invalidate(projectId))

const list = environmentRoute({
  method: "GET",
  path: "/cohorts",
  tag: "cohorts",
  summary: "List cohorts",
  scope: "cohort:read",
  query: PageParams,
  response: Paginated(Cohort, "PaginatedCohortList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* CohortStore).list(project.id, page)
      return paginated(request.url, page, count, yield* Effect.forEach(results, wire))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/cohorts",
  tag: "cohorts",
  summary: "Create a cohort",
  description:
    "Dynamic (`filters` of person properties and behaviour) or static (`is_static: true`): its persons from a CSV (the multipart field `csv`, or `csv` text), from a persons query (`query`), or added afterwards.",
  scope: "cohort:write",
  body: Schema.Struct({
    name: Schema.String,
    description: Schema.optional(Schema.String),
    filters: Schema.optional(Filters),
    is_static: Schema.optional(Schema.Union(Schema.Boolean, FormBoolean)),
    csv: Schema.optional(Csv),
    query: Schema.optional(
      Schema.Union(ActorsQueryNode, InsightActorsQueryNode).annotations({
        description: "Save as cohort: the persons of an ActorsQuery or InsightActorsQuery, listed in a static cohort."
      })
    )
  }).annotations({ identifier: "CohortCreate" }),
  response: Cohort,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const listing = body.csv !== undefined || body.query !== undefined
      const is_static = body.is_static ?? listing
      if (!is_static && listing) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: "Only a static cohort lists persons from a CSV or a query.",
          attr: body.csv !== undefined ? "csv" : "query"
        })
      }
      const listed = yield* personsFrom(project, body)
      if (!is_static && body.filters === undefined) {
        return yield* new ValidationError({
          code: "required",
          detail: "A dynamic cohort needs filters.",
          attr: "filters"
        })
      }
      if (!is_static) yield* checkCohortDefinition(project, undefined, body.filters!.properties)
      const cohort = yield* (yield* CohortStore).create(
        project.id,
        newCohort({
          name: body.name,
          description: body.description,
          properties: is_static ? null : (body.filters!.properties satisfies PropertyGroup),
          is_static,
          created_by: principal.user.id
        })
      )
      if (listed.length > 0) yield* (yield* CohortStore).addPersons(project.id, cohort.id, listed)
      yield* invalidate(project.id)
      if (!is_static) yield* recalculate(project.id, cohort.id)
      return yield* wire(listed.length > 0 ? yield* find(project.id, cohort.id) : cohort)
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/cohorts/:id",
  tag: "cohorts",
  summary: "Retrieve a cohort",
  scope: "cohort:read",
  params: Ref,
  response: Cohort,
  handler: ({ params, project }) =>
    Effect.gen(function* () {
      const cohort = yield* find(project.id, params.id)
      // A cohort of person properties is counted now; the others as listed or last calculated.
      const count =
        cohort.is_static || isCalculated(cohort, yield* (yield* CohortStore).all(project.id))
          ? cohort.count
          : (yield* membersOf(project, cohort, { limit: 0, offset: 0 })).count
      return yield* wire({ ...cohort, count })
    })
})

const update = environmentRoute({
  method: "PATCH",
  path: "/cohorts/:id",
  tag: "cohorts",
  summary: 'Update a cohort (also soft-deletes it with {"deleted": true})',
  scope: "cohort:write",
  params: Ref,
  body: Schema.Struct({
    name: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String),
    filters: Schema.optional(Filters),
    deleted: Schema.optional(Schema.Boolean),
    csv: Schema.optional(Csv)
  }).annotations({ identifier: "CohortUpdate" }),
  response: Cohort,
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const cohort = yield* find(project.id, params.id)
      if (cohort.is_static && body.filters !== undefined) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: "A static cohort has members, not filters.",
          attr: "filters"
        })
      }
      if (!cohort.is_static && body.csv !== undefined) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: "Only a static cohort lists persons from a CSV.",
          attr: "csv"
        })
      }
      if (body.filters !== undefined) yield* checkCohortDefinition(project, cohort.id, body.filters.properties)
      const listed = yield* personsFrom(project, body)
      if (listed.length > 0) yield* (yield* CohortStore).addPersons(project.id, cohort.id, listed)
      const updated = yield* (yield* CohortStore).update(project.id, params.id, {
        name: body.name,
        description: body.description,
        properties: body.filters?.properties,
        deleted: body.deleted
      })
      yield* invalidate(project.id)
      yield* recalculate(project.id, cohort.id)
      return yield* wire(
        listed.length > 0 ? yield* find(project.id, cohort.id) : Option.getOrElse(updated, () => cohort)
      )
    })
})

const remove = softDeleteOnly("/cohorts/:id", "cohorts", "cohort:write")

const Member = Schema.Struct({
  id: Schema.Int,
  uuid: Schema.UUID,
  name: Schema.String,
  distinct_ids: Schema.Array(Schema.String),
  properties: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.Date
}).annotations({ identifier: "CohortMember" })

const members = environmentRoute({
  method: "GET",
  path: "/cohorts/:id/persons",
  tag: "cohorts",
  summary: "List a cohort's persons",
  description:
    "A static cohort's listed persons; a dynamic cohort's persons whose properties match its filters now, as flags match them. Newest first.",
  scope: "cohort:read",
  params: Ref,
  query: PageParams,
  response: Paginated(Member, "PaginatedCohortMemberList"),
  handler: ({ params, project, query, request }) =>
    Effect.gen(function* () {
      const cohort = yield* find(project.id, params.id)
      const page = toPage(query)
      const { count, results } = yield* membersOf(project, cohort, page)
      return paginated(
        request.url,
        page,
        count,
        results.map((p) => ({
          id: p.id,
          uuid: p.uuid,
          name: displayName(p),
          distinct_ids: sortDistinctIds(p.distinct_ids),
          properties: p.properties,
          created_at: p.created_at
        }))
      )
    })
})

const addPersons = environmentRoute({
  method: "PATCH",
  path: "/cohorts/:id/add_persons_to_static_cohort",
  tag: "cohorts",
  summary: "Add persons to a static cohort",
  description: "`{person_ids: [uuid, …]}`; persons already in the cohort, or unknown, are skipped.",
  scope: "cohort:write",
  params: Ref,
  body: Schema.Struct({ person_ids: Schema.Array(Schema.UUID) }),
  response: Schema.Struct({ success: Schema.Boolean, added: Schema.Int }),
  handler: ({ body, params, project }) =>
    Effect.gen(function* () {
      const cohort = yield* find(project.id, params.id)
      if (!cohort.is_static) {
        return yield* new ValidationError({
          code: "invalid_input",
          detail: "Only static cohorts have members added.",
          attr: null
        })
      }
      const added = yield* (yield* CohortStore).addPersons(project.id, params.id, body.person_ids)
      return { success: true, added }
    })
})

export const cohortRoutes = [list, create, retrieve, update, remove, members, addPersons]

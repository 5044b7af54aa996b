import { ArchivedSearchQuery, archivedFilter } from "../archivedSearchQuery.js"
import { Effect, Option, Schema, Struct } from "effect"
import type { Project } from "../../domain/models.js"
import { UserBasic } from "../../domain/models.js"
import { FlagDefinitions } from "../../flags/definitions.js"
import type { FlagFilters } from "../../flags/model.js"
import { uuidv7 } from "../../ingest/uuid.js"
import { newFlag } from "../../flags/flagEntity.js"
import { FlagStore } from "../../services/FlagStore.js"
import type { StorageError } from "../../services/StorageError.js"
import { type StoredSurvey, SurveyStore } from "../../services/SurveyStore.js"
import { newSurvey, Survey as Entity } from "../../surveys/surveyEntity.js"
import { Transactor } from "../../services/Transactor.js"
import {
  Appearance,
  Conditions,
  inconsistency,
  type Question,
  Questions,
  SCHEDULES,
  SURVEY_TYPES,
  Text,
  withIds
} from "../../surveys/definition.js"
import { internalTargetingFilters, targetingFlagKey } from "../../surveys/flags.js"
import { SurveyResponses } from "../../surveys/responses.js"
import { rates, surveyResults } from "../../surveys/results.js"
import { flagsActive, isPublished, isRunning, shownEndDate } from "../../surveys/schedule.js"
import { NotFound } from "../errors.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { createFlag, FlagFiltersSchema, updateFlag } from "../flagWrites.js"
import { flagsById, MinimalFlag, minimalFlag } from "../minimalFlag.js"
import { Paginated, paginated, toPage } from "../../domain/pagination.js"
import { publicJson, tokenProject } from "../projectToken.js"
import { Reply } from "../reply.js"
import { environmentRoute, publicRoute } from "../route.js"
import { userLookup } from "../users.js"
import { check, Instant, IntIn } from "../../schema/fields.js"
import { changesOf, logActivity } from "../../activity/log.js"
import { queryFailure } from "../queryReplies.js"

// Surveys (PostHog's `/surveys/`): the management API, their results, and the public list
// posthog-js reads with the project API key. A survey's targeting filters become a flag of its
// own, and an internal flag stops showing it to people who answered or dismissed it; both are
// made and kept through the flags' own validation and store, on while the survey runs.

const SCOPE = "Survey"
const TAG = "surveys"

const invalid = (detail: string, attr: string | null) => new ValidationError({ code: "invalid_input", detail, attr })
const notFound = () => new NotFound({ detail: "Not found." })

// What comes in is checked more closely than the entity keeps it (a name's length, the types and
// schedules there are, questions and appearance as surveys/definition.ts reads them, dates given as
// text): most fields are the wire's own.
const SurveyWrite = Schema.Struct({
  name: Schema.optional(
    Text.pipe(check((s: string) => s.length <= 400, "max_length", "Ensure this field has no more than 400 characters."))
  ),
  description: Schema.optional(Schema.NullOr(Schema.String)),
  type: Schema.optional(Schema.Literal(...SURVEY_TYPES)),
  schedule: Schema.optional(Schema.NullOr(Schema.Literal(...SCHEDULES))),
  linked_flag_id: Schema.optional(Schema.NullOr(IntIn(1))),
  targeting_flag_id: Schema.optional(Schema.NullOr(IntIn(1))),
  targeting_flag_filters: Schema.optional(Schema.NullOr(FlagFiltersSchema)).annotations({
    description:
      "Who may see the survey, as a flag's filters: Zed makes (or updates) the survey's targeting flag from them."
  }),
  remove_targeting_flag: Schema.optional(Schema.NullOr(Schema.Boolean)),
  questions: Schema.optional(Questions),
  conditions: Schema.optional(Schema.NullOr(Conditions)),
  appearance: Schema.optional(Schema.NullOr(Appearance)),
  start_date: Schema.optional(Schema.NullOr(Instant)).annotations({
    description: "Launches the survey (now or at that date)."
  }),
  end_date: Schema.optional(Schema.NullOr(Instant)).annotations({ description: "Stops it (now or at that date)." }),
  archived: Schema.optional(Entity.fields.archived),
  responses_limit: Schema.optional(Schema.NullOr(IntIn(1))),
  enable_partial_responses: Schema.optional(Entity.fields.enable_partial_responses)
}).annotations({ identifier: "SurveyWrite" })
type SurveyWrite = typeof SurveyWrite.Type

const SurveyCreate = Schema.Struct({
  ...SurveyWrite.fields,
  name: SurveyWrite.fields.name.from,
  type: Schema.Literal(...SURVEY_TYPES),
  questions: Questions
}).annotations({ identifier: "SurveyCreate" })

const Survey = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "description", "type", "schedule"),
  linked_flag: Schema.NullOr(MinimalFlag),
  ...Struct.pick(Entity.fields, "linked_flag_id"),
  targeting_flag: Schema.NullOr(MinimalFlag),
  internal_targeting_flag: Schema.NullOr(MinimalFlag),
  ...Struct.pick(Entity.fields, "questions", "conditions", "appearance"),
  created_at: Schema.Date,
  created_by: Schema.NullOr(UserBasic),
  start_date: Schema.NullOr(Schema.Date),
  end_date: Schema.NullOr(Schema.Date),
  ...Struct.pick(Entity.fields, "archived", "responses_limit"),
  feature_flag_keys: Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.NullOr(Schema.String) })),
  iteration_count: Schema.Null,
  iteration_frequency_days: Schema.Null,
  current_iteration: Schema.Null,
  current_iteration_start_date: Schema.Null,
  ...Struct.pick(Entity.fields, "enable_partial_responses")
}).annotations({ identifier: "Survey" })

const present = (projectId: number, surveys: ReadonlyArray<StoredSurvey>) =>
  Effect.gen(function* () {
    const flags = yield* flagsById(projectId)
    const user = yield* userLookup(surveys.map((s) => s.created_by))
    const flag = (id: number | null) => minimalFlag(projectId, id === null ? undefined : flags.get(id))
    // The response schema keeps the wire's fields of the stored survey and drops the rest.
    return surveys.map((s): typeof Survey.Type => ({
      ...s,
      linked_flag: flag(s.linked_flag_id),
      targeting_flag: flag(s.targeting_flag_id),
      internal_targeting_flag: flag(s.internal_targeting_flag_id),
      created_by: user(s.created_by),
      feature_flag_keys: [
        { key: "linked_flag_key", value: flag(s.linked_flag_id)?.key ?? null },
        { key: "targeting_flag_key", value: flag(s.targeting_flag_id)?.key ?? null },
        { key: "internal_targeting_flag_key", value: flag(s.internal_targeting_flag_id)?.key ?? null }
      ],
      iteration_count: null,
      iteration_frequency_days: null,
      current_iteration: null,
      current_iteration_start_date: null
    }))
  })

const presentOne = (projectId: number, survey: StoredSurvey) => Effect.map(present(projectId, [survey]), (s) => s[0]!)

const SurveyRef = Schema.Struct({ id: Schema.String })

const findSurvey = (projectId: number, id: string) =>
  Effect.flatMap(
    Effect.flatMap(SurveyStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
  )

/** A flag of the project the survey names, or a 400 naming the field. */
const existingFlag = (projectId: number, id: number, attr: string, detail: string) =>
  Effect.flatMap(
    Effect.flatMap(FlagStore, (s) => s.get(projectId, id)),
    Option.match({ onNone: () => Effect.fail(invalid(detail, attr)), onSome: Effect.succeed })
  )

/** One of the survey's flags, if it is still there (someone may have deleted it through the flags API). */
const liveFlag = (projectId: number, id: number | null) =>
  id === null
    ? Effect.succeed(undefined)
    : Effect.map(
        Effect.flatMap(FlagStore, (s) => s.get(projectId, id)),
        Option.getOrUndefined
      )

/** What the survey will be after the write, for the checks between fields. */
interface Effective {
  readonly questions: ReadonlyArray<Question>
  readonly conditions: Conditions | null
  readonly appearance: Appearance | null
  readonly start_date: Date | null
  readonly end_date: Date | null
  readonly linked_flag_id: number | null
}

/** Checks between fields and against storage, PostHog's 400s with the field they are about. */
const checkWrite = (project: Project, body: SurveyWrite, after: Effective) =>
  Effect.gen(function* () {
    const problem = inconsistency(after.questions, after.appearance)
    if (problem !== undefined) return yield* invalid(problem.detail, problem.attr)
    if (after.start_date !== null && after.end_date !== null && after.end_date < after.start_date) {
      return yield* invalid("The end date must not be before the start date.", "end_date")
    }
    const variant = after.conditions?.linkedFlagVariant
    if (after.linked_flag_id === null) {
      if (variant != null && variant !== "")
        return yield* invalid(
          "linkedFlagVariant can only be used when a linked_flag_id is specified",
          "conditions__linkedFlagVariant"
        )
    } else if (body.linked_flag_id !== undefined || body.conditions !== undefined) {
      // A stored link is not checked again: a survey whose linked flag was deleted stays editable.
      const linked = yield* existingFlag(
        project.id,
        after.linked_flag_id,
        "linked_flag_id",
        "Feature Flag with this ID does not exist"
      )
      const variants = (linked.filters.multivariate?.variants ?? []).map((v) => v.key)
      if (variant != null && variant !== "" && variant !== "any" && !variants.includes(variant)) {
        return yield* invalid(
          `Feature flag variant '${variant}' does not exist. Available variants: ${variants.join(", ") || "none"}`,
          "conditions__linkedFlagVariant"
        )
      }
    }
    if (body.targeting_flag_id != null) {
      yield* existingFlag(
        project.id,
        body.targeting_flag_id,
        "targeting_flag_id",
        "Targeting Feature Flag with this ID does not exist"
      )
    }
    const everyone = (body.targeting_flag_filters?.groups ?? []).some(
      (g) => (g.rollout_percentage ?? 100) === 100 && (g.properties ?? []).length === 0
    )
    if (everyone) {
      return yield* invalid(
        "Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting",
        "targeting_flag_filters"
      )
    }
  })

/** A conflict on create or update is another survey holding the name. */
const nameTaken = <A>(effect: Effect.Effect<A, StorageError>) =>
  Effect.catchIf(
    effect,
    (e) => e.conflict === true,
    () =>
      Effect.fail(
        new ValidationError({ code: "unique", detail: "There is already a survey with this name.", attr: "name" })
      )
  )

const targetingFlagName = (name: string) => `Targeting flag for survey ${name}`

/** The targeting flag's filters are the survey's `targeting_flag_filters`: errors about them say so. */
const asTargetingFilters = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (e) =>
    e instanceof ValidationError && e.attr === "filters"
      ? (new ValidationError({ ...e, attr: "targeting_flag_filters" }) as E)
      : e
  )

const list = environmentRoute({
  method: "GET",
  path: "/surveys",
  tag: TAG,
  summary: "List surveys",
  description: "Newest first; `archived` and `search` (name or description) filter.",
  scope: "survey:read",
  query: ArchivedSearchQuery,
  response: Paginated(Survey, "PaginatedSurveyList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* SurveyStore).list(project.id, {
        archived: archivedFilter(query.archived),
        search: query.search,
        ...page
      })
      return paginated(request.url, page, count, yield* present(project.id, results))
    })
})

const create = environmentRoute({
  method: "POST",
  path: "/surveys",
  tag: TAG,
  summary: "Create a survey",
  description:
    "`name`, `type` and `questions` are required. `targeting_flag_filters` makes the survey's targeting flag; an internal flag keeps it from people who answered or dismissed it.",
  scope: "survey:write",
  body: SurveyCreate,
  response: Survey,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const fields: Effective = {
        questions: withIds(body.questions),
        conditions: body.conditions ?? null,
        appearance: body.appearance ?? null,
        start_date: body.start_date ?? null,
        end_date: body.end_date ?? null,
        linked_flag_id: body.linked_flag_id ?? null
      }
      yield* checkWrite(project, body, fields)
      const id = uuidv7()
      const archived = body.archived ?? false
      const active = flagsActive({ archived, ...fields }, new Date())
      const flag = (key: string, filters: FlagFilters) =>
        createFlag(
          project,
          newFlag({ key, name: targetingFlagName(body.name), filters, active, created_by: principal.user.id })
        )
      const survey = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const targeting = body.targeting_flag_filters
            ? yield* asTargetingFilters(flag(targetingFlagKey(""), body.targeting_flag_filters))
            : undefined
          const internal = yield* flag(
            targetingFlagKey("-custom"),
            internalTargetingFilters(id, fields.conditions?.seenSurveyWaitPeriodInDays)
          )
          const survey = newSurvey({
            ...body,
            ...fields,
            id,
            description: body.description ?? undefined,
            targeting_flag_id: targeting?.id ?? body.targeting_flag_id,
            internal_targeting_flag_id: internal.id,
            archived,
            created_by: principal.user.id
          })
          const created = yield* nameTaken((yield* SurveyStore).create(project.id, survey))
          yield* logActivity(SCOPE, project.id, principal.user.id, created, "created", [])
          return created
        })
      )
      // Flags written inside the transaction may have been read back before it committed.
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return yield* presentOne(project.id, survey)
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "/surveys/:id",
  tag: TAG,
  summary: "Retrieve a survey",
  scope: "survey:read",
  params: SurveyRef,
  response: Survey,
  handler: ({ params, project }) => Effect.flatMap(findSurvey(project.id, params.id), (s) => presentOne(project.id, s))
})

/** The fields activity logs. */
const LOGGED = [
  "name",
  "description",
  "type",
  "schedule",
  "questions",
  "conditions",
  "appearance",
  "start_date",
  "end_date",
  "archived",
  "responses_limit",
  "linked_flag_id"
] as const

/** Brings the survey's flags in line with it: on while it runs, the internal flag's wait period current. */
const syncFlags = (project: Project, survey: StoredSurvey, userId: number | null) =>
  Effect.gen(function* () {
    const active = flagsActive(survey, new Date())
    const targeting = yield* liveFlag(project.id, survey.targeting_flag_id)
    if (targeting !== undefined) yield* updateFlag(project, targeting.id, { active, last_modified_by: userId })
    const internal = yield* liveFlag(project.id, survey.internal_targeting_flag_id)
    if (internal !== undefined) {
      const filters = internalTargetingFilters(
        survey.id,
        (survey.conditions as Conditions | null)?.seenSurveyWaitPeriodInDays
      )
      yield* updateFlag(project, internal.id, { active, filters, last_modified_by: userId })
    }
  })

const update = environmentRoute({
  method: "PATCH",
  path: "/surveys/:id",
  tag: TAG,
  summary: "Update a survey (launch it with `start_date`, stop it with `end_date`, archive it with `archived`)",
  description:
    "`targeting_flag_filters` updates the targeting flag (or makes one); `remove_targeting_flag: true` deletes it.",
  scope: "survey:write",
  params: SurveyRef,
  body: SurveyWrite,
  response: Survey,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      const before = yield* findSurvey(project.id, params.id)
      const questions =
        body.questions === undefined ? (before.questions as ReadonlyArray<Question>) : withIds(body.questions)
      const after: Effective = {
        questions,
        conditions: body.conditions === undefined ? (before.conditions as Conditions | null) : body.conditions,
        appearance: body.appearance === undefined ? (before.appearance as Appearance | null) : body.appearance,
        start_date: body.start_date === undefined ? before.start_date : body.start_date,
        end_date: body.end_date === undefined ? before.end_date : body.end_date,
        linked_flag_id: body.linked_flag_id === undefined ? before.linked_flag_id : body.linked_flag_id
      }
      yield* checkWrite(project, body, after)
      const userId = principal.user.id
      const updated = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const current = yield* liveFlag(
            project.id,
            body.targeting_flag_id === undefined ? before.targeting_flag_id : body.targeting_flag_id
          )
          let targeting = current?.id ?? null
          if (body.remove_targeting_flag === true && current !== undefined) {
            yield* updateFlag(project, current.id, { deleted: true, last_modified_by: userId })
            targeting = null
          }
          if (body.targeting_flag_filters) {
            if (targeting !== null && current !== undefined) {
              yield* asTargetingFilters(
                updateFlag(project, targeting, {
                  filters: { ...current.filters, ...body.targeting_flag_filters },
                  last_modified_by: userId
                })
              )
            } else {
              const name = targetingFlagName(body.name ?? before.name)
              targeting = (yield* asTargetingFilters(
                createFlag(
                  project,
                  newFlag({
                    key: targetingFlagKey(""),
                    name,
                    filters: body.targeting_flag_filters,
                    active: false,
                    created_by: userId
                  })
                )
              )).id
            }
          }
          // The targeting flag's filters and removal are not the survey's own fields.
          const { targeting_flag_filters: _, remove_targeting_flag: __, ...fields } = body
          const saved = yield* nameTaken(
            (yield* SurveyStore).update(project.id, params.id, {
              ...fields,
              description: body.description === null ? "" : body.description,
              ...after,
              targeting_flag_id: targeting
            })
          )
          const survey = yield* Option.match(saved, { onNone: () => Effect.fail(notFound()), onSome: Effect.succeed })
          yield* syncFlags(project, survey, userId)
          yield* logActivity(
            SCOPE,
            project.id,
            userId,
            survey,
            "updated",
            changesOf(LOGGED, before, { ...body, questions })
          )
          return survey
        })
      )
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return yield* presentOne(project.id, updated)
    })
})

const remove = environmentRoute({
  method: "DELETE",
  path: "/surveys/:id",
  tag: TAG,
  summary: "Delete a survey",
  description:
    "Deletes it for good, with its targeting flags (its events stay). Archive it instead to keep its results listed.",
  scope: "survey:write",
  params: SurveyRef,
  handler: ({ params, principal, project }) =>
    Effect.gen(function* () {
      const survey = yield* findSurvey(project.id, params.id)
      yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          for (const id of [survey.targeting_flag_id, survey.internal_targeting_flag_id]) {
            const flag = yield* liveFlag(project.id, id)
            if (flag !== undefined)
              yield* updateFlag(project, flag.id, { deleted: true, last_modified_by: principal.user.id })
          }
          yield* (yield* SurveyStore).remove(project.id, survey.id)
          yield* logActivity(SCOPE, project.id, principal.user.id, survey, "deleted", [])
        })
      )
      yield* (yield* FlagDefinitions).invalidate(project.id)
      return Reply.empty(204)
    })
})

const EventStats = Schema.Struct({
  total_count: Schema.Int,
  unique_persons: Schema.Int,
  first_seen: Schema.NullOr(Schema.String),
  last_seen: Schema.NullOr(Schema.String)
})

const QuestionResults = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  question: Schema.String,
  response_count: Schema.Int,
  results: Schema.Array(Schema.Struct({ value: Schema.String, count: Schema.Int })),
  average: Schema.optional(Schema.NullOr(Schema.Number)),
  nps: Schema.optional(
    Schema.Struct({
      score: Schema.NullOr(Schema.Number),
      promoters: Schema.Int,
      passives: Schema.Int,
      detractors: Schema.Int
    })
  )
}).annotations({ identifier: "SurveyQuestionResults" })

const stats = environmentRoute({
  method: "GET",
  path: "/surveys/:id/stats",
  tag: TAG,
  summary: "A survey's results: shown, dismissed and sent counts, rates, and each question's answers",
  description:
    "Computed with ZedQL from the survey's events, within the survey's dates (narrowed by `date_from` and `date_to`, ISO 8601). A submission answered in several `survey sent` events counts once, with its latest answers. Ratings out of 10 get their NPS.",
  scope: "survey:read",
  params: SurveyRef,
  query: Schema.Struct({ date_from: Schema.optional(Instant), date_to: Schema.optional(Instant) }),
  response: Schema.Struct({
    survey_id: Schema.String,
    start_date: Schema.NullOr(Schema.Date),
    end_date: Schema.NullOr(Schema.Date),
    stats: Schema.Record({ key: Schema.String, value: EventStats }),
    rates: Schema.Struct({
      response_rate: Schema.Number,
      dismissal_rate: Schema.Number,
      unique_users_response_rate: Schema.Number,
      unique_users_dismissal_rate: Schema.Number
    }),
    questions: Schema.Array(QuestionResults)
  }).annotations({ identifier: "SurveyStats" }),
  handler: ({ params, project, query }) =>
    Effect.gen(function* () {
      if (query.date_from !== undefined && query.date_to !== undefined && query.date_from > query.date_to) {
        return yield* invalid("date_from must be before date_to", "date_from")
      }
      const survey = yield* findSurvey(project.id, params.id)
      const start = survey.start_date ?? survey.created_at
      const from = query.date_from !== undefined && query.date_from > start ? query.date_from : start
      const to =
        [query.date_to, survey.end_date]
          .filter((d): d is Date => d != null)
          .sort((a, b) => a.getTime() - b.getTime())[0] ?? null
      const results = yield* surveyResults(project, survey, { from, to }).pipe(Effect.catchAll(queryFailure))
      return {
        survey_id: survey.id,
        start_date: survey.start_date,
        end_date: survey.end_date,
        stats: results.stats,
        rates: rates(results.stats),
        questions: results.questions
      }
    })
})

// The public list, as posthog-js reads it with the project API key.

const PublicSurvey = Schema.Struct({
  ...Struct.pick(Entity.fields, "id", "name", "type"),
  linked_flag_key: Schema.NullOr(Schema.String),
  targeting_flag_key: Schema.NullOr(Schema.String),
  internal_targeting_flag_key: Schema.NullOr(Schema.String),
  ...Struct.pick(Entity.fields, "questions", "conditions", "appearance"),
  start_date: Schema.NullOr(Schema.Date),
  end_date: Schema.NullOr(Schema.Date),
  current_iteration: Schema.Null,
  current_iteration_start_date: Schema.Null,
  ...Struct.pick(Entity.fields, "schedule", "enable_partial_responses")
}).annotations({ identifier: "PublicSurvey" })

const PublicSurveys = Schema.Struct({ surveys: Schema.Array(PublicSurvey), survey_config: Schema.Null }).annotations({
  identifier: "PublicSurveys"
})

const COUNT_TIMEOUT = "2 seconds"

/** A survey whose responses reached its limit is stopped now, as PostHog's job stops it. */
const stopAtLimit = (project: Project, survey: StoredSurvey, now: Date) =>
  Effect.gen(function* () {
    if (survey.responses_limit === null || !isRunning(survey, now)) return survey
    // A page load does not wait long on the count: one not known in time is checked on a later load.
    const count = yield* (yield* SurveyResponses).count(project.id, survey.id).pipe(
      Effect.timeout(COUNT_TIMEOUT),
      Effect.orElseSucceed(() => 0)
    )
    if (count < survey.responses_limit) return survey
    const stopped = yield* (yield* Transactor).transaction(
      Effect.gen(function* () {
        const saved = Option.getOrElse(
          yield* (yield* SurveyStore).update(project.id, survey.id, { end_date: now }),
          () => survey
        )
        yield* syncFlags(project, saved, null)
        return saved
      })
    )
    yield* (yield* FlagDefinitions).invalidate(project.id)
    return stopped
  })

/** The surveys posthog-js may show: launched and not archived, drafts never. */
export const publicSurveys = (project: Project) =>
  Effect.gen(function* () {
    const now = new Date()
    const flags = yield* flagsById(project.id)
    const key = (id: number | null) => (id === null ? null : (flags.get(id)?.key ?? null))
    const published = (yield* (yield* SurveyStore).unarchived(project.id)).filter((s) => isPublished(s, now))
    const surveys = yield* Effect.forEach(published, (s) => stopAtLimit(project, s, now))
    // Encoded with PublicSurvey, which keeps posthog-js's fields of the stored survey and drops the rest.
    return surveys.map((s): typeof PublicSurvey.Type => ({
      ...s,
      linked_flag_key: key(s.linked_flag_id),
      targeting_flag_key: key(s.targeting_flag_id),
      internal_targeting_flag_key: key(s.internal_targeting_flag_id),
      end_date: shownEndDate(s, now),
      current_iteration: null,
      current_iteration_start_date: null
    }))
  })

const publicList = publicRoute({
  method: "GET",
  path: "/api/surveys",
  tag: TAG,
  summary: "The surveys posthog-js may show (project API key in `token`)",
  description:
    "Launched, not archived surveys in posthog-js's shape, with their flags' keys; an end date is shown once it has passed. A survey that reached its response limit is stopped. 401 without a project's token.",
  query: Schema.Struct({ token: Schema.optional(Schema.String) }),
  response: PublicSurveys,
  handler: ({ request }) =>
    publicJson(
      request,
      Effect.gen(function* () {
        const project = yield* tokenProject(request)
        const surveys = yield* publicSurveys(project)
        return Schema.encodeSync(PublicSurveys)({ surveys, survey_config: null })
      })
    )
})

export const surveyRoutes = [list, create, stats, retrieve, update, remove, publicList]

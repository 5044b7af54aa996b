import { Effect, Option, Schema, Struct } from "effect"
import { UserBasic } from "../../domain/models.js"
import { compileCode, readFilters, readInputs, readMasking, storedInputsAsSent } from "../../functions/definition.js"
import { FunctionFilters } from "../../functions/filters.js"
import { FunctionHealth, UNKNOWN_STATUS } from "../../functions/health.js"
import { Inputs, InputsSchema, presentInputs } from "../../functions/inputs.js"
import { FunctionRegistry } from "../../functions/registry.js"
import { iconById, searchIcons } from "../../plugins/icons.js"
import { Transactor } from "../../services/Transactor.js"
import { FunctionType, newFunction, ZedFunction as Entity } from "../../functions/functionEntity.js"
import { type FunctionPatch, type StoredFunction, ZedFunctionStore } from "../../services/ZedFunctionStore.js"
import { NotFound } from "../errors.js"
import { FunctionParams, findFunction } from "../zedFunctionLookup.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { Reply } from "../reply.js"
import { environmentRoute, publicRoute, softDeleteOnly } from "../route.js"
import { userLookup } from "../users.js"
import { Instant, Int4, IntFromString, Text } from "../../schema/fields.js"
import { type Change, changesOf, logActivity } from "../../activity/log.js"
import { logRoute } from "../logRoute.js"
import { testRun } from "../../functions/testRun.js"
import type { IncomingEvent } from "../../ingest/normalize.js"

// Zed functions (PostHog's `/hog_functions/`): Hog code run on a project's events, transformations
// before storage and destinations after it. Deleting is soft (PATCH {"deleted": true}, DELETE
// answers 405) and `deleted` is write-only: a deleted function is simply gone from every read.

const TAG = "zed functions"
const SCOPE = "ZedFunction"

const invalid = (detail: string, attr: string | null = null) =>
  new ValidationError({ code: "invalid_input", detail, attr })
const notFound = () => new NotFound({ detail: "Not found." })

// The wire takes any type (refused with PostHog's message unless it is one), a null description
// (as none), and code, inputs, filters and masking as sent, to validate and compile; the rest are
// the entity's fields as declared.
const FunctionWrite = Schema.partial(
  Schema.Struct({
    type: Schema.Unknown.annotations({
      description: "`transformation` or `destination`; required at creation, fixed after."
    }),
    name: Text(400),
    description: Schema.NullOr(Schema.String),
    ...Struct.pick(Entity.fields, "enabled"),
    deleted: Entity.fields.deleted.annotations({ description: "Write-only: true deletes softly, false restores." }),
    code: Entity.fields.code.annotations({ description: "Hog source; compiled to `bytecode` when saved." }),
    inputs_schema: Schema.Unknown.annotations({
      description: "The inputs: `[{type, key, label, required, default, secret, choices, templating}]`."
    }),
    inputs: Inputs,
    filters: Schema.Unknown.annotations({
      description: "`{events, properties, filter_test_accounts}`: which events reach the function; null for all."
    }),
    masking: Schema.Unknown.annotations({
      description: "`{ttl, threshold, hash}` or null: de-duplicates invocations by a hash template."
    }),
    mappings: Entity.fields.mappings.annotations({ description: "Not supported: null or empty." }),
    ...Struct.pick(Entity.fields, "icon_url", "template_id"),
    execution_order: Schema.NullOr(Int4)
  })
).annotations({ identifier: "ZedFunctionWrite" })
type FunctionWrite = typeof FunctionWrite.Type

const Status = Schema.Struct({ state: Schema.Int, tokens: Schema.Int, rating: Schema.Number })

const StoredMasking = Schema.NullOr(
  Schema.Struct({
    ttl: Schema.Int,
    threshold: Schema.NullOr(Schema.Int),
    hash: Schema.String,
    bytecode: Schema.Array(Schema.Unknown)
  })
)

const listFields = {
  ...Struct.pick(Entity.fields, "id", "type", "name", "description"),
  created_at: Schema.Date,
  created_by: Schema.NullOr(UserBasic),
  updated_at: Schema.Date,
  ...Struct.pick(Entity.fields, "enabled", "code"),
  filters: Schema.NullOr(FunctionFilters),
  ...Struct.pick(Entity.fields, "icon_url"),
  template: Schema.Null,
  status: Status.annotations({
    description:
      "`state` 0 unknown, 1 healthy, 2 degraded; `rating`: share of the last 100 invocations (in this process) that succeeded."
  }),
  ...Struct.pick(Entity.fields, "execution_order")
}

const ZedFunctionSummary = Schema.Struct(listFields).annotations({ identifier: "ZedFunctionSummary" })

export const ZedFunction = Schema.Struct({
  ...listFields,
  ...Struct.pick(Entity.fields, "bytecode"),
  inputs_schema: InputsSchema,
  inputs: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: 'Values with their compiled templates; secret inputs as `{"secret": true}`.'
  }),
  masking: StoredMasking,
  ...Struct.pick(Entity.fields, "mappings")
}).annotations({ identifier: "ZedFunction" })
type ZedFunction = typeof ZedFunction.Type

const present = (functions: ReadonlyArray<StoredFunction>) =>
  Effect.gen(function* () {
    const user = yield* userLookup(functions.map((f) => f.created_by))
    const health = yield* FunctionHealth
    // The response schema keeps the wire's fields of the stored function and drops the rest; the
    // secret inputs are left out here all the same, shown only masked among the inputs.
    return functions.map(
      ({ secrets, ...fn }): ZedFunction => ({
        ...fn,
        created_by: user(fn.created_by),
        filters: fn.filters as FunctionFilters | null,
        template: null,
        status: fn.enabled ? health.status(fn.id) : UNKNOWN_STATUS,
        inputs_schema: fn.inputs_schema as ZedFunction["inputs_schema"],
        inputs: presentInputs(fn.inputs, secrets),
        masking: fn.masking as ZedFunction["masking"]
      })
    )
  })

const presentOne = (fn: StoredFunction) => Effect.map(present([fn]), (all) => all[0]!)

const refuseMappings = (mappings: ReadonlyArray<unknown> | null | undefined) =>
  mappings !== undefined && mappings !== null && mappings.length > 0
    ? Effect.fail(invalid("Mappings are not supported: create one destination per mapping.", "mappings"))
    : Effect.void

/** The fields a write sets, validated and compiled against what is stored (nothing, at creation). */
const prepare = (body: FunctionWrite, stored: StoredFunction | undefined) =>
  Effect.gen(function* () {
    yield* refuseMappings(body.mappings)
    // What is not read or compiled here is stored as given.
    const { type: _, code, inputs_schema, inputs, filters, masking, description, ...given } = body
    const patch: { -readonly [K in keyof FunctionPatch]: FunctionPatch[K] } = { ...given }
    if (code !== undefined) {
      patch.code = code
      patch.bytecode = yield* compileCode(code)
    }
    if (inputs_schema !== undefined || inputs !== undefined) {
      const schema = inputs_schema ?? stored?.inputs_schema ?? []
      const sent = inputs ?? (stored === undefined ? {} : storedInputsAsSent(stored))
      const compiled = yield* readInputs(schema, sent, stored?.secrets ?? {})
      patch.inputs_schema = compiled.inputs_schema
      patch.inputs = compiled.inputs
      patch.secrets = compiled.secrets
    }
    if (filters !== undefined) patch.filters = yield* readFilters(filters)
    if (masking !== undefined) patch.masking = yield* readMasking(masking)
    if (description !== undefined) patch.description = description ?? ""
    return patch
  })

const ACTIVITY_FIELDS = [
  "name",
  "description",
  "enabled",
  "deleted",
  "code",
  "inputs_schema",
  "filters",
  "masking",
  "icon_url",
  "execution_order"
] as const

const activityItem = (fn: StoredFunction) => ({ id: fn.id, name: fn.name })

const list = environmentRoute({
  method: "GET",
  path: "/zed_functions",
  tag: TAG,
  summary: "List zed functions",
  description:
    "Destinations only unless `type` or `types` (comma-separated) says otherwise; by `execution_order`, then creation. `filters` (JSON) keeps functions whose filters contain it.",
  scope: "zed_function:read",
  query: PageParams.pipe(
    Schema.extend(
      Schema.Struct({
        type: Schema.optional(FunctionType),
        types: Schema.optional(Schema.String),
        enabled: Schema.optional(Schema.Literal("true", "false")),
        created_by: Schema.optional(IntFromString(0)),
        id: Schema.optional(Schema.String),
        filters: Schema.optional(Schema.String)
      })
    )
  ),
  response: Paginated(ZedFunctionSummary, "PaginatedZedFunctionList"),
  handler: ({ project, query, request }) =>
    Effect.gen(function* () {
      const types = query.types
        ?.split(",")
        .map((t) => t.trim())
        .filter((t) => t !== "") ?? [query.type ?? "destination"]
      const unknown = types.find((t) => !(FunctionType.literals as ReadonlyArray<string>).includes(t))
      if (unknown !== undefined) return yield* invalid(`Unknown type: ${unknown}`, "types")
      const wanted = yield* containedFilters(query.filters)
      const all = (yield* (yield* ZedFunctionStore).list(project.id)).filter(
        (fn) =>
          types.includes(fn.type) &&
          (query.enabled === undefined || fn.enabled === (query.enabled === "true")) &&
          (query.created_by === undefined || fn.created_by === query.created_by) &&
          (query.id === undefined || fn.id === query.id) &&
          (wanted === undefined || contains(fn.filters, wanted))
      )
      const page = toPage(query)
      return paginated(request.url, page, all.length, yield* present(all.slice(page.offset, page.offset + page.limit)))
    })
})

const containedFilters = (text: string | undefined) => {
  if (text === undefined) return Effect.succeed(undefined)
  try {
    return Effect.succeed(JSON.parse(text) as unknown)
  } catch {
    return Effect.fail(invalid("Invalid JSON in filters.", "filter"))
  }
}

/** JSON containment, as Postgres' `@>`: objects by key, arrays by every wanted item matching one. */
const contains = (have: unknown, want: unknown): boolean => {
  if (Array.isArray(want)) return Array.isArray(have) && want.every((w) => have.some((h) => contains(h, w)))
  if (typeof want === "object" && want !== null) {
    return (
      typeof have === "object" &&
      have !== null &&
      !Array.isArray(have) &&
      Object.entries(want).every(([k, v]) => contains((have as Record<string, unknown>)[k], v))
    )
  }
  return have === want
}

const retrieve = environmentRoute({
  method: "GET",
  path: "/zed_functions/:id",
  tag: TAG,
  summary: "Retrieve a zed function",
  scope: "zed_function:read",
  params: FunctionParams,
  response: ZedFunction,
  handler: ({ params, project }) => Effect.flatMap(findFunction(project.id, params.id), presentOne)
})

const create = environmentRoute({
  method: "POST",
  path: "/zed_functions",
  tag: TAG,
  summary: "Create a zed function",
  description:
    "`type`, `name` and `code` are required. The code is compiled (400 with the position of a syntax error), `inputs` checked against `inputs_schema` and compiled as templates. A transformation without `execution_order` runs after the others.",
  scope: "zed_function:write",
  body: FunctionWrite,
  response: ZedFunction,
  status: 201,
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      if (body.type === undefined)
        return yield* new ValidationError({ code: "required", detail: "This field is required.", attr: "type" })
      if (!Schema.is(FunctionType)(body.type))
        return yield* invalid(`"${String(body.type)}" is not a valid choice: transformation or destination.`, "type")
      if (body.name === undefined)
        return yield* new ValidationError({ code: "required", detail: "This field is required.", attr: "name" })
      if (body.code === undefined)
        return yield* new ValidationError({ code: "required", detail: "This field is required.", attr: "code" })
      // A function is created live, and without mappings (an empty list is taken as none).
      const { deleted: _, mappings: __, ...fields } = yield* prepare(body, undefined)
      const fn = yield* (yield* ZedFunctionStore).create(
        project.id,
        newFunction({
          ...fields,
          type: body.type,
          name: body.name,
          code: body.code,
          bytecode: fields.bytecode!,
          execution_order: body.type === "transformation" ? fields.execution_order : null,
          created_by: principal.user.id
        })
      )
      yield* logActivity(SCOPE, project.id, principal.user.id, activityItem(fn), "created", [], fn.type)
      yield* (yield* FunctionRegistry).invalidate(project.id)
      return yield* presentOne(fn)
    })
})

const update = environmentRoute({
  method: "PATCH",
  path: "/zed_functions/:id",
  tag: TAG,
  summary: "Update a zed function",
  description:
    'Changes the fields given. `type` cannot change. `{"deleted": true}` deletes the function softly, `false` restores it. A secret input sent back as `{"secret": true}` keeps its value.',
  scope: "zed_function:write",
  params: FunctionParams,
  body: FunctionWrite,
  response: ZedFunction,
  handler: ({ body, params, principal, project }) =>
    Effect.gen(function* () {
      // Only restoring reaches a deleted function.
      const stored = yield* findFunction(project.id, params.id, body.deleted === false)
      if (body.type !== undefined && body.type !== stored.type)
        return yield* invalid("Cannot modify the type of an existing function", "type")
      const patch = yield* prepare(body, stored)
      const updated = Option.getOrThrow(yield* (yield* ZedFunctionStore).update(project.id, stored.id, patch))
      const changes: Array<Change> = changesOf(ACTIVITY_FIELDS, stored, patch)
      const activity =
        patch.deleted === true && !stored.deleted
          ? "deleted"
          : patch.deleted === false && stored.deleted
            ? "restored"
            : "updated"
      yield* logActivity(SCOPE, project.id, principal.user.id, activityItem(updated), activity, changes, updated.type)
      yield* (yield* FunctionRegistry).invalidate(project.id)
      return yield* presentOne(updated)
    })
})

const Rearrange = Schema.Struct({
  orders: Schema.Record({ key: Schema.String, value: Int4 }).annotations({
    description: "Function id → its new `execution_order`."
  })
}).annotations({ identifier: "ZedFunctionRearrange" })

const rearrange = environmentRoute({
  method: "PATCH",
  path: "/zed_functions/rearrange",
  tag: TAG,
  summary: "Reorder transformations",
  description:
    "Sets the `execution_order` of the given transformations in one transaction and answers with all the project's transformations in their new order. Unknown ids and repeated orders are refused.",
  scope: "zed_function:write",
  body: Rearrange,
  response: Schema.Array(ZedFunction),
  handler: ({ body, principal, project }) =>
    Effect.gen(function* () {
      const orders = Object.entries(body.orders)
      if (orders.length === 0) return yield* invalid("No orders provided", "orders")
      const repeated = orders.find(([, order], i) => orders.findIndex(([, o]) => o === order) !== i)
      if (repeated !== undefined)
        return yield* invalid(`Order ${repeated[1]} is given to more than one function.`, "orders")
      const store = yield* ZedFunctionStore
      const transformations = yield* (yield* Transactor).transaction(
        Effect.gen(function* () {
          const current = (yield* store.list(project.id)).filter((fn) => fn.type === "transformation")
          const byId = new Map(current.map((fn) => [fn.id, fn]))
          for (const [id, order] of orders) {
            const fn = byId.get(id)
            if (fn === undefined) return yield* invalid(`ZedFunction with id ${id} does not exist`, "orders")
            if (fn.execution_order === order) continue
            yield* store.update(project.id, id, { execution_order: order })
            yield* logActivity(
              SCOPE,
              project.id,
              principal.user.id,
              activityItem(fn),
              "updated",
              [
                {
                  field: "priority",
                  before: String(fn.execution_order),
                  after: String(order)
                }
              ],
              fn.type
            )
          }
          return (yield* store.list(project.id)).filter((fn) => fn.type === "transformation")
        })
      )
      yield* (yield* FunctionRegistry).invalidate(project.id)
      return yield* present(transformations)
    })
})

const Icon = Schema.Struct({ id: Schema.String, name: Schema.String, url: Schema.String }).annotations({
  identifier: "ZedFunctionIcon"
})

const icons = environmentRoute({
  method: "GET",
  path: "/zed_functions/icons",
  tag: TAG,
  summary: "Search the icon set",
  description: "Icons of the set shipped with Zed whose name or keywords match `query`; an empty query finds none.",
  scope: "zed_function:read",
  query: Schema.Struct({ query: Schema.optional(Schema.String) }),
  response: Schema.Array(Icon),
  handler: ({ project, query }) =>
    Effect.succeed(
      searchIcons(query.query ?? "").map((icon) => ({
        id: icon.id,
        name: icon.name,
        url: `/api/environments/${project.id}/zed_functions/icon/?id=${encodeURIComponent(icon.id)}`
      }))
    )
})

const icon = publicRoute({
  method: "GET",
  path: "/api/environments/:project_id/zed_functions/icon",
  aliases: ["/api/projects/:project_id/zed_functions/icon"],
  tag: TAG,
  summary: "An icon of the set (SVG)",
  description: "Public, so that an `<img>` can load it: the icons are Zed's own, the same for every project.",
  query: Schema.Struct({ id: Schema.optional(Schema.String) }),
  handler: ({ query }) =>
    Effect.gen(function* () {
      if (query.id === undefined || query.id === "") return yield* invalid("id is required", "id")
      const found = iconById(query.id)
      if (found === undefined) return yield* notFound()
      return new Reply(200, found.svg, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" })
    })
})

const logs = logRoute({
  path: "/zed_functions/:id/logs",
  tag: TAG,
  summary: "Logs of a zed function",
  scope: "zed_function:read",
  params: FunctionParams,
  owner: ({ params, project }) =>
    Effect.as(findFunction(project.id, params.id), { kind: "zed_function" as const, id: params.id }),
  fields: { zed_function_id: Schema.UUID },
  ownerFields: (entry) => ({ zed_function_id: entry.owner.id }),
  identifier: "ZedFunctionLogEntry"
})

// Trying code before saving it: compiling alone (for the editor's inline errors), and a test run on
// a sample event that stores and sends nothing.

const compile = environmentRoute({
  method: "POST",
  path: "/zed_functions/compile",
  tag: TAG,
  summary: "Compile Hog code",
  description:
    "Compiles `code` as a function's code is compiled when saved: its bytecode, or a 400 on `code` giving the line and column of the first error.",
  scope: "zed_function:read",
  body: Schema.Struct({ code: Schema.String }).annotations({ identifier: "ZedFunctionCompile" }),
  response: Schema.Struct({ bytecode: Schema.Array(Schema.Unknown) }),
  handler: ({ body }) => Effect.map(compileCode(body.code), (bytecode) => ({ bytecode }))
})

const SampleEvent = Schema.Struct({
  event: Text(400),
  distinct_id: Schema.optionalWith(Schema.String, { default: () => "sample-distinct-id" }),
  properties: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), {
    default: () => ({})
  }),
  uuid: Schema.optional(Schema.UUID),
  timestamp: Schema.optional(Instant)
})

const TestInvocation = Schema.Struct({
  configuration: FunctionWrite.annotations({
    description: "The function as it would be saved; on a saved function, what is not given is taken from it."
  }),
  globals: Schema.Struct({ event: SampleEvent })
}).annotations({ identifier: "ZedFunctionTestInvocation" })

const TestResult = Schema.Struct({
  status: Schema.Literal("success", "error", "skipped"),
  result: Schema.Unknown.annotations({
    description: "A transformation's event as it would be stored (null: dropped); a destination's return value."
  }),
  logs: Schema.Array(
    Schema.Struct({
      timestamp: Schema.String,
      level: Schema.Literal("DEBUG", "LOG", "INFO", "WARN", "ERROR"),
      message: Schema.String
    })
  )
}).annotations({ identifier: "ZedFunctionTestResult" })

/** Errors in the configuration named as its fields: `configuration__code`. */
const inConfiguration = <A, R>(effect: Effect.Effect<A, ValidationError, R>) =>
  Effect.catchTag(effect, "ValidationError", (error) =>
    Effect.fail(
      new ValidationError({ ...error, attr: error.attr === null ? "configuration" : `configuration__${error.attr}` })
    )
  )

const invoke = (
  project: Parameters<typeof testRun>[0],
  body: typeof TestInvocation.Type,
  stored: StoredFunction | undefined
) =>
  Effect.gen(function* () {
    const given = body.configuration
    const type = given.type ?? stored?.type
    if (!Schema.is(FunctionType)(type))
      return yield* invalid(
        `"${String(type)}" is not a valid choice: transformation or destination.`,
        "configuration__type"
      )
    const code = given.code ?? stored?.code
    if (code === undefined)
      return yield* new ValidationError({
        code: "required",
        detail: "This field is required.",
        attr: "configuration__code"
      })
    yield* inConfiguration(refuseMappings(given.mappings))
    const patch = yield* inConfiguration(prepare({ ...given, code }, stored))
    const sample = body.globals.event
    const now = new Date()
    const event: IncomingEvent = {
      uuid: sample.uuid ?? crypto.randomUUID(),
      event: sample.event,
      distinct_id: sample.distinct_id,
      properties: sample.properties,
      timestamp: sample.timestamp ?? now,
      received_at: now,
      processPerson: true
    }
    return yield* Effect.promise(() =>
      testRun(
        project,
        {
          type,
          name: given.name ?? stored?.name ?? "",
          bytecode: patch.bytecode!,
          inputs: patch.inputs ?? stored?.inputs ?? {},
          secrets: patch.secrets ?? stored?.secrets ?? {},
          filters: patch.filters !== undefined ? patch.filters : (stored?.filters ?? null)
        },
        event
      )
    )
  })

const invocationSpec = {
  method: "POST",
  tag: TAG,
  summary: "Test a zed function on a sample event",
  description:
    "Runs the function given in `configuration` once on `globals.event`: nothing is stored, and a destination's `fetch` is answered 200 without a request. Answers the status, the result and the logs.",
  scope: "zed_function:write",
  body: TestInvocation,
  response: TestResult
} as const

const testNew = environmentRoute({
  ...invocationSpec,
  path: "/zed_functions/invocations",
  handler: ({ body, project }) => invoke(project, body, undefined)
})

const testSaved = environmentRoute({
  ...invocationSpec,
  path: "/zed_functions/:id/invocations",
  params: FunctionParams,
  handler: ({ body, params, project }) =>
    Effect.flatMap(findFunction(project.id, params.id), (stored) => invoke(project, body, stored))
})

export const zedFunctionRoutes = [
  rearrange,
  compile,
  testNew,
  testSaved,
  icons,
  icon,
  list,
  create,
  logs,
  retrieve,
  update,
  softDeleteOnly("/zed_functions/:id", TAG, "zed_function:write")
]

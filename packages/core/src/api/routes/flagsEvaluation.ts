import { randomUUID } from "node:crypto"
import { type Cause, Context, Effect, Option, Schema } from "effect"
import { isObject } from "../../domain/json.js"
import type { Project } from "../../domain/models.js"
import { FlagDefinitions, type FlagSnapshot } from "../../flags/definitions.js"
import { evaluateFlags } from "../../flags/evaluate.js"
import { evaluationContext, type FlagRequest } from "../../flags/inputs.js"
import type { FlagResult } from "../../flags/model.js"
import { FlagPersons } from "../../flags/persons.js"
import { FlagQuota } from "../../flags/quota.js"
import { type FlagsEndpoint, flagsResponse } from "../../flags/responses.js"
import { decodeCapturePayload } from "../../ingest/decode.js"
import { nameText } from "../../ingest/normalize.js"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { cleanString, TooDeep } from "../../ingest/sanitize.js"
import { plausibleToken } from "../../ingest/shapes.js"
import { FlagInputs, type FlagInputsQuery, type FlagInputsResult } from "../../services/FlagInputs.js"
import { GeoIp } from "../../services/GeoIp.js"
import type { StorageError } from "../../services/StorageError.js"
import { ZedConfig, type ZedLimits } from "../../services/ZedConfig.js"
import { readBody } from "../body.js"
import { storageFailureReply } from "../errors.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { type FastPath, type Method, publicRoute } from "../route.js"
import { corsHeaders, failure } from "../captureEdge.js"
import { hasRunningSurveys, remoteConfig } from "../../sdk/remoteConfig.js"

// Flag evaluation for SDKs: /decide (v1–4) and /flags (v1–2), answering in the shape each version
// expects. Public: the project API key identifies the project; no answer carries anything secret.
//
// Two ways to the same answer: the Effect handler, which reads what it lacks from storage, and a
// fast path that answers without a fiber when everything is in memory (the project's key and flags,
// the person's properties or their absence, the quota count). Both run the steps below.

/** How long a request waits for the person's stored data before answering without it. */
const INPUTS_TIMEOUT = "1 second"

const noInputs: FlagInputsResult = {
  personProperties: null,
  groupProperties: new Map(),
  staticCohorts: new Set(),
  hashKeyOverrides: {}
}

const first = (body: Record<string, unknown>, ...names: ReadonlyArray<string>): unknown =>
  names.map((n) => body[n]).find((v) => v !== undefined && v !== null)

const objectOf = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {})

const stringsOf = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined

// X-Forwarded-For names the address to locate, proxy or not: it decides only `$geoip_*`
// properties, which a request may send itself anyway.
const geoipAddress = (request: ZedRequest) =>
  request.header("x-forwarded-for")?.split(",")[0]?.trim() || request.remoteAddress

/** What a flag call sends, decoded, before anything is looked up. */
interface Call {
  readonly endpoint: FlagsEndpoint
  readonly request: ZedRequest
  readonly body: Record<string, unknown>
  readonly token: string
}

/** Step 1: the body in any of PostHog's encodings, and the project API key. */
const readCall = (endpoint: FlagsEndpoint, request: ZedRequest, raw: Uint8Array, limits: ZedLimits): Call | Reply => {
  const query = request.url.searchParams
  const decoded =
    raw.length === 0 && !query.has("data")
      ? { _tag: "Decoded" as const, value: {} }
      : decodeCapturePayload({
          method: request.method,
          query,
          contentType: request.header("content-type"),
          contentEncoding: request.header("content-encoding"),
          body: raw,
          maxDecodedBytes: limits.decodedBytes.api
        })
  if (decoded._tag === "TooLarge")
    return failure(request, "payload_too_large", `maximum request size exceeded: ${decoded.detail}`)
  if (decoded._tag !== "Decoded" || !isObject(decoded.value)) {
    return failure(
      request,
      "invalid_payload",
      decoded._tag === "Decoded" ? "the request body must be a JSON object" : decoded.detail
    )
  }
  const body = decoded.value
  const token = first(body, "token", "api_key", "$token") ?? query.get("token") ?? undefined
  if (typeof token !== "string" || token === "")
    return failure(request, "invalid_api_key", "API key is not valid: no project API key in the request")
  if (!plausibleToken(token))
    return failure(request, "invalid_api_key", "API key is not valid: it is not a project API key")
  return { endpoint, request, body, token }
}

const unknownProject = (call: Call) =>
  failure(call.request, "invalid_api_key", "API key is not valid: no project has this API key")

/** Step 2: the flag request the body describes, with PostHog's aliases; a distinct id is required. */
const flagRequest = (call: Call, geoipOf: GeoIp["Type"]): FlagRequest | Reply => {
  const { body, request } = call
  const distinct = first(body, "distinct_id", "$distinct_id")
  if (distinct === undefined) return failure(request, "invalid_payload", "distinct_id is required")
  let distinctId: string
  try {
    // The person is looked up by the distinct id as capture stored it.
    distinctId = nameText(distinct)
  } catch (error) {
    if (error instanceof TooDeep) return failure(request, "invalid_payload", "distinct_id is nested too deeply")
    throw error
  }
  const ip = body["geoip_disable"] === true ? undefined : geoipAddress(request)
  const personProperties = objectOf(first(body, "person_properties", "$properties"))
  const anon = first(body, "$anon_distinct_id") ?? personProperties["$anon_distinct_id"]
  const device = first(body, "$device_id", "device_id") ?? personProperties["$device_id"]
  const runtime = body["evaluation_runtime"]
  return {
    distinctId,
    personProperties,
    groups: Object.fromEntries(
      Object.entries(objectOf(first(body, "groups", "$groups")))
        .filter(([, key]) => typeof key === "string" || typeof key === "number")
        .map(([type, key]) => [type, cleanString(String(key))])
    ),
    groupProperties: Object.fromEntries(
      Object.entries(objectOf(first(body, "group_properties", "$group_properties"))).map(([type, p]) => [
        type,
        objectOf(p)
      ])
    ),
    // The cookieless sentinel is not a person.
    anonDistinctId:
      typeof anon === "string" && anon !== "" && anon !== "$posthog_cookieless" ? cleanString(anon) : undefined,
    deviceId: typeof device === "string" && device !== "" ? device : undefined,
    geoip: ip === undefined ? {} : geoipOf.lookup(ip),
    runtime: runtime === "server" || runtime === "client" ? runtime : undefined,
    evaluationContexts: stringsOf(first(body, "evaluation_contexts", "evaluation_environments")),
    flagKeys: stringsOf(first(body, "flag_keys", "flag_keys_to_evaluate"))
  }
}

/**
 * Step 3: what must be read about the person. Nothing, when the request's own properties are all
 * flags may use; only their properties, when no flag needs groups, static cohorts or continuity;
 * else everything, in one storage round trip.
 */
type Needs =
  | { readonly _tag: "Nothing" }
  | { readonly _tag: "Person" }
  | { readonly _tag: "Everything"; readonly query: FlagInputsQuery; readonly onlyOverrides: boolean }

const needsOf = (call: Call, snapshot: FlagSnapshot, request: FlagRequest): Needs => {
  const onlyOverrides = call.request.url.searchParams.get("only_use_override_person_properties") === "true"
  const groups = Object.entries(request.groups).flatMap(([type, key]) => {
    const index = snapshot.groupTypeIndex.get(type)
    return index === undefined ? [] : [{ index, key }]
  })
  const continuity =
    request.anonDistinctId !== undefined && snapshot.continuityKeys.length > 0
      ? { flagKeys: snapshot.continuityKeys, anonDistinctId: request.anonDistinctId }
      : undefined
  if (groups.length > 0 || snapshot.staticCohortIds.length > 0 || continuity !== undefined) {
    return {
      _tag: "Everything",
      query: { distinctId: request.distinctId, groups, staticCohortIds: snapshot.staticCohortIds, continuity },
      onlyOverrides
    }
  }
  return onlyOverrides ? { _tag: "Nothing" } : { _tag: "Person" }
}

/** Whether a flag's conditions read stored person or group properties (or cohorts). */
const needsStoredData = (flag: FlagSnapshot["flags"][number]) =>
  [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])].some((c) =>
    (c.properties ?? []).some((p) => p.type === undefined || ["person", "group", "cohort"].includes(p.type))
  )

const failed = (result: FlagResult): FlagResult => ({
  ...result,
  enabled: false,
  variant: null,
  payload: null,
  failed: true,
  reason: {
    code: "evaluation_error",
    condition_index: null,
    description: "Could not evaluate: the person's data was unavailable"
  }
})

/** Step 4: the flags evaluated (unless over quota) and the answer in the shape the endpoint and version call for. */
const answer = (
  call: Call,
  project: Project,
  snapshot: FlagSnapshot,
  request: FlagRequest,
  quotaLimited: boolean,
  /** What was read about the person; undefined when it could not be read. */
  inputs: FlagInputsResult | undefined
): Reply => {
  const now = new Date()
  let results: ReadonlyMap<string, FlagResult> = new Map()
  let errors = false
  if (!quotaLimited) {
    const inputsFailed = inputs === undefined
    const context = evaluationContext(snapshot, request, inputs ?? noInputs, {
      timezone: project.timezone,
      now,
      inputsFailed
    })
    const evaluated = evaluateFlags(snapshot.flags, context)
    results = evaluated.results
    errors = evaluated.errors
    if (inputsFailed) {
      // Flags reading stored data cannot be decided without it: reported failed, the others stand.
      const failing = new Set(snapshot.flags.filter(needsStoredData).map((f) => f.key))
      results = new Map([...results].map(([key, result]) => [key, failing.has(key) ? failed(result) : result]))
      errors = errors || [...results.values()].some((r) => r.failed)
    }
  }
  const query = call.request.url.searchParams
  const withConfig = call.endpoint === "decide" || query.get("config") === "true"
  const body = flagsResponse({
    endpoint: call.endpoint,
    version: Number(query.get("v") ?? query.get("version") ?? 0) || 0,
    results,
    flags: snapshot.byKey,
    errors,
    quotaLimited,
    configJson: withConfig ? configJson(project, snapshot.hasActiveFlags, hasRunningSurveys(snapshot, now)) : undefined,
    requestId: randomUUID(),
    evaluatedAt: now.getTime()
  })
  return new Reply(200, body, { "content-type": "application/json", ...corsHeaders(call.request) })
}

const preflight = (request: ZedRequest) => Reply.json(200, { status: "Ok" }, corsHeaders(request))

/** What the person's data is read as, for needs other than `Everything`. */
const personInputs = (properties: Readonly<Record<string, unknown>> | null): FlagInputsResult => ({
  ...noInputs,
  personProperties: properties
})

const loadInputs = (
  project: Project,
  needs: Needs,
  distinctId: string
): Effect.Effect<FlagInputsResult, StorageError | Cause.TimeoutException, FlagInputs | FlagPersons> => {
  switch (needs._tag) {
    case "Nothing":
      return Effect.succeed(noInputs)
    case "Person":
      return Effect.map(
        Effect.flatMap(FlagPersons, (persons) => persons.get(project.id, distinctId)),
        personInputs
      )
    case "Everything":
      return Effect.flatMap(FlagInputs, (inputs) => inputs.load(project.id, needs.query)).pipe(
        Effect.timeout(INPUTS_TIMEOUT),
        Effect.map((loaded) => (needs.onlyOverrides ? { ...loaded, personProperties: null } : loaded))
      )
  }
}

const evaluate =
  (endpoint: FlagsEndpoint) =>
  ({ request }: { readonly request: ZedRequest }) =>
    Effect.gen(function* () {
      if (request.method === "OPTIONS") return preflight(request)
      const { limits } = yield* ZedConfig
      const read = request.method === "GET" ? undefined : yield* Effect.either(readBody(request, limits.bodyBytes.api))
      if (read?._tag === "Left" && read.left._tag === "PayloadTooLarge") {
        return failure(
          request,
          "payload_too_large",
          `maximum request size exceeded: the body is larger than ${read.left.limit} bytes`
        )
      }
      // A body that could not be read (the client went away) is no body.
      const call = readCall(endpoint, request, read?._tag === "Right" ? read.right : new Uint8Array(), limits)
      if (call instanceof Reply) return call
      const found = yield* Effect.either((yield* ProjectTokens).find(call.token))
      if (found._tag === "Left") return yield* found.left
      if (Option.isNone(found.right)) return unknownProject(call)
      const project = found.right.value
      const parsed = flagRequest(call, yield* GeoIp)
      if (parsed instanceof Reply) return parsed
      const snapshot = yield* (yield* FlagDefinitions).get(project.id)
      const quotaLimited = yield* (yield* FlagQuota).count(project.organization)
      if (quotaLimited) return answer(call, project, snapshot, parsed, true, undefined)
      const loaded = yield* Effect.either(loadInputs(project, needsOf(call, snapshot, parsed), parsed.distinctId))
      if (loaded._tag === "Left")
        yield* Effect.logWarning("flags: could not read the person's data", String(loaded.left))
      return answer(call, project, snapshot, parsed, false, loaded._tag === "Right" ? loaded.right : undefined)
    }).pipe(
      // Without the project or its flags nothing can be answered: a 503 keeps the SDKs' last values.
      Effect.catchTag("StorageError", (error) =>
        Effect.as(
          Effect.logError("flags: storage failure", error.message),
          storageFailureReply(error, corsHeaders(request))
        )
      )
    )

/** The same steps from memory; undefined as soon as one would need storage. */
const fromMemory =
  (endpoint: FlagsEndpoint): FastPath<ProjectTokens | FlagDefinitions | FlagQuota | FlagPersons | GeoIp | ZedConfig> =>
  (services) => {
    const { limits } = Context.get(services, ZedConfig)
    const tokens = Context.get(services, ProjectTokens)
    const definitions = Context.get(services, FlagDefinitions)
    const quota = Context.get(services, FlagQuota)
    const persons = Context.get(services, FlagPersons)
    const geoip = Context.get(services, GeoIp)
    const withBody = (request: ZedRequest, raw: Uint8Array): Reply | undefined => {
      const call = readCall(endpoint, request, raw, limits)
      if (call instanceof Reply) return call
      const found = tokens.peek(call.token)
      if (found === undefined) return undefined
      if (Option.isNone(found)) return unknownProject(call)
      const project = found.value
      const parsed = flagRequest(call, geoip)
      if (parsed instanceof Reply) return parsed
      const snapshot = definitions.peek(project.id)
      if (snapshot === undefined) return undefined
      const needs = needsOf(call, snapshot, parsed)
      const properties =
        needs._tag === "Nothing"
          ? null
          : needs._tag === "Person"
            ? persons.peek(project.id, parsed.distinctId)
            : undefined
      if (properties === undefined) return undefined
      // Counted last: a request sent on to the handler must not be counted twice.
      const quotaLimited = quota.tally(project.organization)
      if (quotaLimited === undefined) return undefined
      return answer(call, project, snapshot, parsed, quotaLimited, quotaLimited ? undefined : personInputs(properties))
    }
    return (request) => {
      if (request.method === "OPTIONS") return preflight(request)
      if (request.method === "GET") return withBody(request, new Uint8Array())
      // A body that cannot be read, or is too large, is the handler's to refuse.
      return request.body(limits.bodyBytes.api).then(
        (raw) => withBody(request, raw),
        () => undefined
      )
    }
  }

// A project's config keys change only with the project (a new object when reloaded), whether it
// has active flags and whether a survey runs, so their text is made once per project and kept
// while the object lives.
const configTexts = new WeakMap<
  Project,
  { readonly hasActiveFlags: boolean; readonly surveys: boolean; readonly json: string }
>()

const configJson = (project: Project, hasActiveFlags: boolean, surveys: boolean): string => {
  const known = configTexts.get(project)
  if (known !== undefined && known.hasActiveFlags === hasActiveFlags && known.surveys === surveys) return known.json
  const { token: _, ...config } = remoteConfig(project, hasActiveFlags, surveys)
  const json = JSON.stringify({
    ...config,
    isAuthenticated: false,
    toolbarParams: {},
    config: { enable_collect_everything: true }
  })
  configTexts.set(project, { hasActiveFlags, surveys, json })
  return json
}

const FlagsOk = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "FlagsResponse"
})

const description = `Evaluates the project's feature flags for a person: \`{token|api_key, distinct_id, groups?, person_properties?,
group_properties?, $anon_distinct_id?, $device_id?, geoip_disable?, flag_keys_to_evaluate?}\`, as JSON, gzip, base64 or form
\`data=\`. The answer's shape follows the endpoint and \`v\`: /decide v1 lists enabled keys, v2 maps them to values, v3 (and /flags
v1) maps every flag to its value with \`featureFlagPayloads\`, v4 (and /flags v2) gives each flag's value, reason and metadata.
\`quotaLimited: ["feature_flags"]\` (with no flags) when the organization is over its flag evaluation quota.`

const routesFor = (endpoint: FlagsEndpoint) =>
  (["GET", "POST", "OPTIONS"] as const satisfies ReadonlyArray<Method>).map((method) =>
    publicRoute({
      method,
      path: `/${endpoint}`,
      tag: "feature flags",
      summary:
        method === "OPTIONS"
          ? `Evaluate feature flags (/${endpoint}, CORS preflight)`
          : `Evaluate feature flags (/${endpoint})`,
      description,
      response: FlagsOk,
      handler: evaluate(endpoint),
      fast: fromMemory(endpoint)
    })
  )

export const flagsEvaluationRoutes = [...routesFor("decide"), ...routesFor("flags")]

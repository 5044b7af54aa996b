import { randomUUID } from "node:crypto"
import { type Cause, Effect, Option, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import { FlagDefinitions, type FlagSnapshot } from "../../flags/definitions.js"
import { evaluateFlags } from "../../flags/evaluate.js"
import { evaluationContext, type FlagRequest } from "../../flags/inputs.js"
import type { FlagResult } from "../../flags/model.js"
import { FlagQuota } from "../../flags/quota.js"
import { type FlagsEndpoint, flagsResponse } from "../../flags/responses.js"
import { decodeCapturePayload } from "../../ingest/decode.js"
import { PersonCache } from "../../ingest/personCache.js"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { FlagInputs, type FlagInputsResult } from "../../services/FlagInputs.js"
import { GeoIp } from "../../services/GeoIp.js"
import type { StorageError } from "../../services/StorageError.js"
import { readBody } from "../body.js"
import { Reply } from "../reply.js"
import type { ZedRequest } from "../request.js"
import { type Method, publicRoute } from "../route.js"
import { corsHeaders } from "./capture.js"
import { remoteConfig } from "./remoteConfig.js"
import { isObject } from "../../domain/json.js"

// Flag evaluation for SDKs: /decide (v1–4) and /flags (v1–2), answering in the shape each version
// expects. Public: the project API key identifies the project; no answer carries anything secret.

const MB = 1024 * 1024
/** How long a request waits for the person's stored data before answering without it. */
const INPUTS_TIMEOUT = "1 second"

const noInputs: FlagInputsResult = { personProperties: null, groupProperties: new Map(), staticCohorts: new Set(), hashKeyOverrides: {} }


const first = (body: Record<string, unknown>, ...names: ReadonlyArray<string>): unknown =>
  names.map((n) => body[n]).find((v) => v !== undefined && v !== null)

const objectOf = (value: unknown): Record<string, unknown> => (isObject(value) ? value : {})

const stringsOf = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined

const refuse = (request: ZedRequest, status: number, detail: string) =>
  Reply.json(status, {
    type: status === 401 ? "authentication_error" : "validation_error",
    code: status === 401 ? "invalid_api_key" : "invalid_payload",
    detail,
    attr: null
  }, corsHeaders(request))

// X-Forwarded-For names the address to locate, proxy or not (seed 4.19): it decides only `$geoip_*`
// properties, which a request may send itself anyway.
const geoipAddress = (request: ZedRequest) =>
  request.header("x-forwarded-for")?.split(",")[0]?.trim() || request.remoteAddress

/** The flag request a body describes, with PostHog's aliases; a distinct id is required. */
const flagRequest = (body: Record<string, unknown>, geoip: Readonly<Record<string, unknown>>): FlagRequest | string => {
  const distinct = first(body, "distinct_id", "$distinct_id")
  if (distinct === undefined) return "distinct_id is required"
  const personProperties = objectOf(first(body, "person_properties", "$properties"))
  const anon = first(body, "$anon_distinct_id") ?? personProperties["$anon_distinct_id"]
  const device = first(body, "$device_id", "device_id") ?? personProperties["$device_id"]
  const runtime = body["evaluation_runtime"]
  return {
    distinctId: (typeof distinct === "string" ? distinct : JSON.stringify(distinct)).slice(0, 200),
    personProperties,
    groups: Object.fromEntries(
      Object.entries(objectOf(first(body, "groups", "$groups")))
        .filter(([, key]) => typeof key === "string" || typeof key === "number")
        .map(([type, key]) => [type, String(key)])
    ),
    groupProperties: Object.fromEntries(
      Object.entries(objectOf(first(body, "group_properties", "$group_properties"))).map(([type, p]) => [type, objectOf(p)])
    ),
    // The cookieless sentinel is not a person.
    anonDistinctId: typeof anon === "string" && anon !== "" && anon !== "$posthog_cookieless" ? anon : undefined,
    deviceId: typeof device === "string" && device !== "" ? device : undefined,
    geoip,
    runtime: runtime === "server" || runtime === "client" ? runtime : undefined,
    evaluationContexts: stringsOf(first(body, "evaluation_contexts", "evaluation_environments")),
    flagKeys: stringsOf(first(body, "flag_keys", "flag_keys_to_evaluate"))
  }
}

/** Whether a flag's conditions read stored person or group properties (or cohorts). */
const needsStoredData = (flag: FlagSnapshot["flags"][number]) =>
  [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])]
    .some((c) => (c.properties ?? []).some((p) => p.type === undefined || ["person", "group", "cohort"].includes(p.type)))

/** The person's stored data: from the person cache when that is all the flags need, else one round trip. */
const loadInputs = (
  project: Project,
  snapshot: FlagSnapshot,
  request: FlagRequest,
  onlyOverrides: boolean
): Effect.Effect<FlagInputsResult, StorageError | Cause.TimeoutException, FlagInputs | PersonCache> => {
  const groups = Object.entries(request.groups).flatMap(([type, key]) => {
    const index = snapshot.groupTypeIndex.get(type)
    return index === undefined ? [] : [{ index, key }]
  })
  const continuity = request.anonDistinctId !== undefined && snapshot.continuityKeys.length > 0
    ? { flagKeys: snapshot.continuityKeys, anonDistinctId: request.anonDistinctId }
    : undefined
  // Only a storage read gets a time budget: a timer per request would cost more than a cache hit.
  const fromStorage = Effect.flatMap(FlagInputs, (inputs) =>
    inputs.load(project.id, { distinctId: request.distinctId, groups, staticCohortIds: snapshot.staticCohortIds, continuity })).pipe(
      Effect.timeout(INPUTS_TIMEOUT),
      Effect.map((inputs) => (onlyOverrides ? { ...inputs, personProperties: null } : inputs))
    )
  const personOnly = groups.length === 0 && snapshot.staticCohortIds.length === 0 && snapshot.continuityKeys.length === 0
  if (!personOnly) return fromStorage
  if (onlyOverrides) return Effect.succeed(noInputs)
  return Effect.flatMap(PersonCache, (cache) => {
    const cached = cache.lookup(project.id, [request.distinctId]).found[0]
    return cached === undefined ? fromStorage : Effect.succeed({ ...noInputs, personProperties: cached.properties })
  })
}

const evaluate = (endpoint: FlagsEndpoint) => ({ request }: { readonly request: ZedRequest }) =>
  Effect.gen(function*() {
    if (request.method === "OPTIONS") return Reply.json(200, { status: "Ok" }, corsHeaders(request))
    const query = request.url.searchParams
    const raw = request.method === "GET" ? new Uint8Array() : yield* Effect.orElseSucceed(readBody(request), () => new Uint8Array())
    const decoded = raw.length === 0 && !query.has("data")
      ? { _tag: "Decoded" as const, value: {} }
      : decodeCapturePayload({
        method: request.method,
        query,
        contentType: request.header("content-type"),
        contentEncoding: request.header("content-encoding"),
        body: raw,
        maxDecodedBytes: 20 * MB
      })
    if (decoded._tag !== "Decoded" || !isObject(decoded.value)) {
      return refuse(request, 400, decoded._tag === "Decoded" ? "the request body must be a JSON object" : decoded.detail)
    }
    const body = decoded.value
    const token = first(body, "token", "api_key", "$token") ?? query.get("token") ?? undefined
    if (typeof token !== "string" || token === "") return refuse(request, 401, "API key is not valid: no project API key in the request")
    const found = yield* Effect.either((yield* ProjectTokens).find(token))
    if (found._tag === "Left") return refuse(request, 503, "transient error, please retry")
    if (Option.isNone(found.right)) return refuse(request, 401, "API key is not valid: no project has this API key")
    const project = found.right.value

    const ip = body["geoip_disable"] === true ? undefined : geoipAddress(request)
    const geoip = ip === undefined ? {} : (yield* GeoIp).lookup(ip)
    const flagRequestOrError = flagRequest(body, geoip)
    if (typeof flagRequestOrError === "string") return refuse(request, 400, flagRequestOrError)
    const parsed = flagRequestOrError

    const snapshot = yield* (yield* FlagDefinitions).get(project.id)
    const quotaLimited = yield* (yield* FlagQuota).count(project.organization)
    const now = new Date()
    let results: ReadonlyMap<string, FlagResult> = new Map()
    let errors = false
    if (!quotaLimited) {
      const loaded = yield* Effect.either(loadInputs(project, snapshot, parsed, query.get("only_use_override_person_properties") === "true"))
      if (loaded._tag === "Left") yield* Effect.logWarning("flags: could not read the person's data", String(loaded.left))
      const inputsFailed = loaded._tag === "Left"
      const context = evaluationContext(snapshot, parsed, inputsFailed ? noInputs : loaded.right, {
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
    const withConfig = endpoint === "decide" || query.get("config") === "true"
    const answer = flagsResponse({
      endpoint,
      version: Number(query.get("v") ?? query.get("version") ?? 0) || 0,
      results,
      flags: snapshot.byKey,
      errors,
      quotaLimited,
      configJson: withConfig ? configJson(project, snapshot.hasActiveFlags) : undefined,
      requestId: randomUUID(),
      evaluatedAt: now.getTime()
    })
    return new Reply(200, answer, { "content-type": "application/json", ...corsHeaders(request) })
  }).pipe(
    Effect.catchTag("StorageError", (error) =>
      Effect.as(Effect.logError("flags: storage failure", error.message), refuse(request, 503, "transient error, please retry")))
  )

const failed = (result: FlagResult): FlagResult => ({
  ...result,
  enabled: false,
  variant: null,
  payload: null,
  failed: true,
  reason: { code: "evaluation_error", condition_index: null, description: "Could not evaluate: the person's data was unavailable" }
})

// A project's config keys change only with the project (a new object when reloaded) or whether it
// has active flags, so their text is made once per project and kept while the object lives.
const configTexts = new WeakMap<Project, { readonly hasActiveFlags: boolean; readonly json: string }>()

const configJson = (project: Project, hasActiveFlags: boolean): string => {
  const known = configTexts.get(project)
  if (known !== undefined && known.hasActiveFlags === hasActiveFlags) return known.json
  const { token: _, ...config } = remoteConfig(project, hasActiveFlags)
  const json = JSON.stringify({ ...config, isAuthenticated: false, toolbarParams: {}, config: { enable_collect_everything: true } })
  configTexts.set(project, { hasActiveFlags, json })
  return json
}

const FlagsOk = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ identifier: "FlagsResponse" })

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
      summary: method === "OPTIONS" ? `Evaluate feature flags (/${endpoint}, CORS preflight)` : `Evaluate feature flags (/${endpoint})`,
      description,
      response: FlagsOk,
      handler: evaluate(endpoint)
    })
  )

export const flagsEvaluationRoutes = [...routesFor("decide"), ...routesFor("flags")]

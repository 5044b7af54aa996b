// POST /decide/?v=3 evaluating 20 flags, through the standalone server (`serve()` of @zed/node, as
// `zed serve` runs, on on-disk PGlite and on the PostgreSQL server), against a bare node:http server
// doing the same evaluation with Zed's own evaluator from memory, for three kinds of request: persons
// whose properties are stored, and distinct ids Zed has never seen, with and without
// `person_properties`. Each server runs in its own process: this file is also their entry point
// (`node bench/decide.js zed|bare`).
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { cpus, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"
import { record, startServer, storePlaces } from "./lib.js"

const TOKEN = "phc_benchmark_project_token_0000000001"
const KEY = "phx_benchmark_key_00000000000000000001"
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const PERSONS = 100
const CONNECTIONS = 32
const SECONDS = 10
const ROUNDS = 3
/** What a request is measured under: at least this share of the bare server's rate, and this p99. */
const TARGET = { ratio: 0.8, p99: 10 }

const person = (key, operator, value) => ({ key, type: "person", operator, value })
const variants = (...pcts) => ({ variants: pcts.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) })
const payloads = (n) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`v${i}`, JSON.stringify({ variant: i, copy: `Variant ${i}` })])
  )

// 6 rollout-only flags, 8 on person properties, 6 multivariate with payloads.
export const FLAGS = [
  ...[10, 25, 50, 75, 90, 100].map((pct) => [
    `rollout-${pct}`,
    { groups: [{ properties: [], rollout_percentage: pct }] }
  ]),
  ["plan-pro", { groups: [{ properties: [person("plan", "exact", "pro")], rollout_percentage: 100 }] }],
  ["acme-half", { groups: [{ properties: [person("email", "icontains", "@acme.com")], rollout_percentage: 50 }] }],
  ["north-america", { groups: [{ properties: [person("country", "exact", ["US", "CA", "GB"])] }] }],
  ["big-companies", { groups: [{ properties: [person("company_size", "gt", 50)], rollout_percentage: 80 }] }],
  [
    "paid-chrome",
    { groups: [{ properties: [person("plan", "is_not", "free"), person("$browser", "exact", "Chrome")] }] }
  ],
  ["email-regex", { groups: [{ properties: [person("email", "regex", "^person-[0-9]*5@")] }] }],
  ["new-app", { groups: [{ properties: [person("app_version", "semver_gte", "2.1.0")] }] }],
  [
    "enterprise-or-large",
    {
      groups: [
        { properties: [person("plan", "exact", "enterprise")] },
        { properties: [person("company_size", "gte", 100)], rollout_percentage: 30 }
      ]
    }
  ],
  ["three-way", { groups: [{ properties: [] }], multivariate: variants(33, 33, 34), payloads: payloads(3) }],
  [
    "pro-experiment",
    {
      groups: [{ properties: [person("plan", "exact", "pro")] }],
      multivariate: variants(50, 50),
      payloads: payloads(2)
    }
  ],
  [
    "override",
    {
      groups: [
        { properties: [person("email", "icontains", "@acme.com")], variant: "v1" },
        { properties: [], rollout_percentage: 50 }
      ],
      multivariate: variants(100, 0),
      payloads: payloads(2)
    }
  ],
  [
    "four-way",
    {
      groups: [{ properties: [], rollout_percentage: 80 }],
      multivariate: variants(25, 25, 25, 25),
      payloads: payloads(4)
    }
  ],
  [
    "us-only",
    {
      groups: [{ properties: [person("country", "exact", "US")] }],
      multivariate: variants(90, 10),
      payloads: payloads(2)
    }
  ],
  [
    "pricing-page",
    {
      groups: [{ properties: [person("company_size", "lt", 150)] }],
      multivariate: variants(50, 50),
      payloads: payloads(1)
    }
  ]
]

export const personProperties = (i) => ({
  email: `person-${i}@${["acme.com", "example.com", "other.org"][i % 3]}`,
  name: `Person ${i}`,
  plan: ["free", "pro", "enterprise", "free"][i % 4],
  country: ["US", "CA", "DE", "GB", "FR"][i % 5],
  company_size: (i * 37) % 200,
  $browser: i % 2 ? "Chrome" : "Firefox",
  app_version: `${1 + (i % 3)}.${i % 5}.0`
})

const ids = Array.from({ length: PERSONS }, (_, i) => `person-${i}`)
// Visitors Zed has never seen: posthog-js sends what it knows of them as `person_properties`.
const visitors = Array.from({ length: PERSONS }, (_, i) => `visitor-${i}`)
const KINDS = {
  "stored person": ids.map((id) => JSON.stringify({ token: TOKEN, distinct_id: id })),
  "unknown id with person_properties": visitors.map((id, i) =>
    JSON.stringify({ token: TOKEN, distinct_id: id, person_properties: personProperties(i) })
  ),
  "unknown id without": visitors.map((id) => JSON.stringify({ token: TOKEN, distinct_id: id }))
}

// --- The two servers, each in its own process.

/** Zed's standalone server: configuration from the environment (PGlite under ZED_DATA_DIR, or DATABASE_URL). */
const serveZed = async () => {
  const { loadConfig, serve } = await import("@zed/node")
  const running = await serve(await loadConfig(), () => {})
  process.send({ port: Number(new URL(running.url).port) })
  process.on("disconnect", () => void running.close().then(() => process.exit(0)))
}

/** The baseline: the same evaluation from memory, the same v3 answer, nothing else. */
const serveBare = async () => {
  const { evaluateFlags } = await import("../packages/core/dist/flags/evaluate.js")
  const { evaluationContext } = await import("../packages/core/dist/flags/inputs.js")
  const data = JSON.parse(readFileSync(process.env.BENCH_DATA, "utf8"))
  const stored = new Map(Object.entries(data.persons))
  // Zed's own context builder, over a snapshot with no groups or cohorts (the flags use none).
  const snapshot = { groupTypes: new Map(), groupTypeIndex: new Map(), cohorts: new Map() }
  const noInputs = { groupProperties: new Map(), staticCohorts: new Set(), hashKeyOverrides: {} }
  const context = (distinctId, requested) =>
    evaluationContext(
      snapshot,
      {
        distinctId,
        personProperties: requested,
        groups: {},
        groupProperties: {},
        geoip: {}
      },
      { ...noInputs, personProperties: stored.get(distinctId) ?? null },
      { timezone: "UTC", now: new Date(), inputsFailed: false }
    )
  const server = createServer((req, res) => {
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () => {
      let body
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        res.writeHead(400).end()
        return
      }
      if (body.token !== TOKEN) return void res.writeHead(401).end()
      if (typeof body.distinct_id !== "string") return void res.writeHead(400).end()
      const { results } = evaluateFlags(data.flags, context(body.distinct_id, body.person_properties ?? {}))
      const featureFlags = {}
      const featureFlagPayloads = {}
      for (const r of results.values()) {
        featureFlags[r.key] = r.enabled ? (r.variant ?? true) : false
        if (r.enabled && r.payload !== null && r.payload !== undefined) featureFlagPayloads[r.key] = r.payload
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(
        JSON.stringify({
          ...data.config,
          errorsWhileComputingFlags: false,
          requestId: randomUUID(),
          evaluatedAt: Date.now(),
          featureFlags,
          featureFlagPayloads
        })
      )
    })
  }).listen(0, "127.0.0.1", () => process.send({ port: server.address().port }))
  process.on("disconnect", () => server.close(() => process.exit(0)))
}

// --- The benchmark.

const call = async (url, path, { method = "GET", body, key } = {}) => {
  const res = await fetch(url + path, {
    method,
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return JSON.parse(text)
}

const decide = (url, body) =>
  fetch(`${url}/decide/?v=3`, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) =>
    r.json()
  )

/** Flags, then persons (their properties set by `$identify`, as an SDK would). */
const setUp = async (url) => {
  for (const [key, filters] of FLAGS)
    await call(url, "/api/projects/1/feature_flags/", { method: "POST", key: KEY, body: { key, filters } })
  const batch = ids.map((id, i) => ({ event: "$identify", distinct_id: id, properties: { $set: personProperties(i) } }))
  await call(url, "/batch/", { method: "POST", body: { api_key: TOKEN, batch } })
}

/** What the bare server needs: Zed's served definitions, the stored persons, and /decide's config keys. */
const snapshot = async (url) => {
  const definitions = await call(url, "/api/projects/1/feature_flags/local_evaluation", { key: KEY })
  const { results } = await call(url, `/api/projects/1/persons/?limit=${PERSONS * 2}`, { key: KEY })
  const persons = Object.fromEntries(results.flatMap((p) => p.distinct_ids.map((id) => [id, p.properties])))
  if (ids.some((id) => persons[id] === undefined)) throw new Error("not every person was stored")
  const {
    featureFlags: _,
    featureFlagPayloads: __,
    requestId: ___,
    evaluatedAt: ____,
    errorsWhileComputingFlags: _____,
    ...config
  } = await decide(url, KINDS["stored person"][0])
  return { flags: definitions.flags, persons, config }
}

/** Both servers must give every request the same flags and payloads. */
const sameAnswers = async (zedUrl, bareUrl, bodies) => {
  let enabled = 0
  for (const body of bodies) {
    const [a, b] = await Promise.all([decide(zedUrl, body), decide(bareUrl, body)])
    const pick = (r) => JSON.stringify([r.featureFlags, r.featureFlagPayloads, Object.keys(r).sort()])
    if (pick(a) !== pick(b)) throw new Error(`the servers disagree for ${body}:\n${pick(a)}\n${pick(b)}`)
    if (Object.keys(a.featureFlags).length !== FLAGS.length)
      throw new Error(`Zed evaluated ${Object.keys(a.featureFlags).length} flags`)
    enabled += Object.values(a.featureFlags).filter((v) => v !== false).length
  }
  return enabled / bodies.length
}

/** Requests per second and p99, after a warm-up; each connection cycles through the bodies. */
const load = async (url, bodies, seconds) => {
  const options = {
    url,
    connections: CONNECTIONS,
    requests: bodies.map((body) => ({
      method: "POST",
      path: "/decide/?v=3",
      headers: { "content-type": "application/json" },
      body
    }))
  }
  await autocannon({ ...options, duration: 2 })
  const result = await autocannon({ ...options, duration: seconds })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p99: result.latency.p99 }
}

/** Zed on one store against the bare server, for each kind of request. */
const measure = async (store, place, { seconds, rounds }) => {
  const dir = mkdtempSync(join(tmpdir(), "zed-bench-decide-"))
  const zed = await startServer("./decide.js", ["zed"], {
    PORT: "0",
    HOST: "127.0.0.1",
    ZED_DATA_DIR: join(dir, "data"),
    ZED_PROJECT_API_KEY: TOKEN,
    ZED_PERSONAL_API_KEY: KEY,
    // Unset (undefined), a DATABASE_URL in the caller's environment would select PostgreSQL.
    DATABASE_URL: place.startsWith("postgres:") ? place.slice("postgres:".length) : undefined
  })
  let bare
  try {
    await setUp(zed.url)
    const dataFile = join(dir, "bare.json")
    writeFileSync(dataFile, JSON.stringify(await snapshot(zed.url)))
    bare = await startServer("./decide.js", ["bare"], { BENCH_DATA: dataFile })
    const rows = []
    for (const [kind, bodies] of Object.entries(KINDS)) {
      const enabledPerRequest = await sameAnswers(zed.url, bare.url, bodies)
      // Two cores are shared by the server and the load generator: the pair is measured `rounds`
      // times, alternating, and the median ratio reported.
      const pairs = []
      for (let round = 0; round < rounds; round++) {
        const z = await load(zed.url, bodies, seconds)
        const b = await load(bare.url, bodies, seconds)
        pairs.push({ zed: z, bare: b, ratio: z.rps / b.rps })
      }
      const median = [...pairs].sort((x, y) => x.ratio - y.ratio)[Math.floor(pairs.length / 2)]
      rows.push({ store, kind, enabledPerRequest, median, ratios: pairs.map((p) => p.ratio) })
    }
    return rows
  } finally {
    bare?.stop()
    zed.stop()
    // Give PGlite's process a moment to exit before its files go.
    await new Promise((r) => setTimeout(r, 500))
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The evaluation alone, in this process: µs per 20-flag evaluation with the definitions compiled
 * once (the same snapshot every time, as Zed serves them) against fresh copies compiled on every
 * call (what each request cost before definitions were compiled per snapshot).
 */
const evaluationCost = async () => {
  const { evaluateFlags } = await import("../packages/core/dist/flags/evaluate.js")
  const definitions = FLAGS.map(([key, filters], i) => ({
    id: i + 1,
    key,
    name: "",
    active: true,
    deleted: false,
    version: 1,
    ensure_experience_continuity: false,
    bucketing_identifier: null,
    evaluation_runtime: "all",
    evaluation_contexts: [],
    has_experiment: false,
    filters
  }))
  const contexts = ids.map((distinctId, i) => ({
    distinctId,
    personProperties: personProperties(i),
    groups: {},
    groupProperties: {},
    groupTypes: new Map(),
    cohorts: new Map(),
    staticCohorts: new Set(),
    unavailableCohorts: new Set(),
    hashKeyOverrides: {},
    anonDistinctId: undefined,
    deviceId: undefined,
    propertyMatchingVersion: 1,
    timezone: "UTC",
    now: new Date(),
    runtime: undefined,
    evaluationContexts: undefined,
    flagKeys: undefined
  }))
  const calls = 20_000
  const copies = Array.from({ length: calls }, () => structuredClone(definitions))
  const time = (flagsOf) => {
    for (let i = 0; i < 2_000; i++) evaluateFlags(flagsOf((i % 100) + calls - 100), contexts[i % 100])
    const started = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) evaluateFlags(flagsOf(i), contexts[i % 100])
    return Number(process.hrtime.bigint() - started) / calls / 1000
  }
  const fresh = time((i) => copies[i])
  const once = time(() => definitions)
  return { once, fresh }
}

export const run = async ({ seconds = SECONDS, rounds = ROUNDS } = {}) => {
  const cost = await evaluationCost()
  const rows = []
  for (const store of ["PGlite", "PostgreSQL server"]) {
    const places = storePlaces(store, SERVER_URL)
    try {
      rows.push(...(await measure(store, await places.place(), { seconds, rounds })))
    } finally {
      await places.cleanup()
    }
  }
  const met = (row) =>
    row.store !== "PGlite"
      ? "–"
      : row.median.ratio >= TARGET.ratio && row.median.zed.p99 < TARGET.p99
        ? "met"
        : "**missed**"
  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; autocannon, ${CONNECTIONS} connections, ${seconds} s after 2 s warm-up, ${rounds} rounds alternating (median ratio shown); ${FLAGS.length} flags, ${PERSONS} distinct ids of each kind cycled; each server in its own process. Target on PGlite: at least ${TARGET.ratio} of bare and p99 under ${TARGET.p99} ms.`,
    "",
    "| Store | Request | Zed req/s | Zed p99 | bare req/s | bare p99 | Zed / bare | rounds | target |",
    "|---|---|---:|---:|---:|---:|---:|---|---|",
    ...rows.map(
      (row) =>
        `| ${row.store} | ${row.kind} (${row.enabledPerRequest.toFixed(1)} flags on) | ${Math.round(row.median.zed.rps)} | ${row.median.zed.p99} ms | ${Math.round(row.median.bare.rps)} | ${row.median.bare.p99} ms | ${row.median.ratio.toFixed(2)} | ${row.ratios.map((r) => r.toFixed(2)).join(", ")} | ${met(row)} |`
    ),
    "",
    `Evaluating the ${FLAGS.length} flags alone, in one process: ${cost.once.toFixed(1)} µs per call with the definitions compiled once per snapshot, ${cost.fresh.toFixed(1)} µs with fresh definitions compiled on every call (${(cost.once / cost.fresh).toFixed(2)} of it).`
  ].join("\n")
  record("decide", table)
  return table
}

const main = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (main && process.argv[2] === "zed") await serveZed()
else if (main && process.argv[2] === "bare") await serveBare()
else if (main) console.log(await run())

// Ingest through /batch/ (posthog-js-like batches of 50 events from concurrent clients) with 0, 1
// and 5 enabled transformations, measured in one run on PGlite and on the PostgreSQL server; the
// ratios are against 0 transformations. After each run the stored events are counted through the
// query API, with what each transformation should have written.
import { cpus } from "node:os"
import { Agent } from "node:http"
import { shopEvent, USERS } from "./ingest.js"
import { apiCall, postJson, record, startServer, storePlaces } from "./lib.js"

const TOKEN = "phc_benchmark_project_token_0000000001"
const KEY = "phx_benchmark_key_00000000000000000001"
const BATCH = 50
const BATCHES = Number(process.env.BENCH_TRANSFORMATION_BATCHES ?? 300)
const WARMUP_BATCHES = 20
const CLIENTS = 8
const ROUNDS = 3
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const PLANS = ["Free", "PRO", "free", "Team", undefined]

// ingest.js's events with a referral query string, some referring domains, a plan in mixed case
// (or none), and sign-ups setting it; `phase` tells measured events from warm-up ones.
const makeBatches = (count, phase, start) =>
  Array.from({ length: count }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i
      const plan = PLANS[n % PLANS.length]
      const event = shopEvent(n, start)
      return {
        ...event,
        properties: {
          ...event.properties,
          $current_url: `${event.properties.$current_url}?ref=Newsletter`,
          $referring_domain: n % 4 ? "$direct" : "News.Example.com",
          phase,
          ...(plan === undefined ? {} : { plan }),
          ...(n % 10 === 0 ? { $set: { plan: plan ?? "free", last_signup: n } } : {})
        }
      }
    })
  )

// Five transformations as a project might have them: normalizing, tagging, an inputs template, one
// filtered to an event, one dropping a property. The first alone is the one-transformation run.
const TRANSFORMATIONS = [
  {
    name: "Normalize plan",
    code: "let e := event\ne.properties.plan := lower(e.properties.plan ?? 'free')\ne.properties.processed := true\nreturn e"
  },
  {
    name: "Library tag",
    code: "let e := event\ne.properties.source := inputs.source\nreturn e",
    inputs_schema: [{ type: "string", key: "source", label: "Source", required: true, templating: true }],
    inputs: { source: { value: "{event.properties.$lib}/{event.properties.$lib_version}" } }
  },
  {
    name: "Sign-up referrer",
    code: "let e := event\ne.properties.signup_referrer := lower(e.properties.$referring_domain ?? 'direct')\nreturn e",
    filters: { events: [{ id: "signed_up", name: "signed_up", type: "events", order: 0 }] }
  },
  {
    name: "Browser key",
    code: "let e := event\ne.properties.browser_key := concat(lower(e.properties.$browser ?? 'unknown'), '-', toString(e.properties.$browser_version ?? 0))\nreturn e"
  },
  {
    name: "Strip referral",
    code: "let e := event\nlet url := e.properties.$current_url ?? ''\ne.properties.$current_url := splitByString('?', url)[1]\ne.properties.price_band := if(e.properties.price >= 75, 'high', 'standard')\nreturn e"
  }
]

/** Seconds taken to send the batches to /batch/ from CLIENTS concurrent clients (bodies made first). */
const send = async (server, batches) => {
  const url = `${server.url}/batch/`
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  const bodies = batches.map((batch) => JSON.stringify({ api_key: TOKEN, batch, sent_at: new Date().toISOString() }))
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) await postJson(agent, url, bodies[next++])
    })
  )
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return seconds
}

/** What the measured events must look like once stored, given which transformations ran. */
const expected = (batches, count) => {
  const events = batches.flat()
  const signUps = events.filter((e) => e.event === "signed_up").length
  return {
    total: events.length,
    processed: count >= 1 ? events.length : 0,
    pro: count >= 1 ? events.filter((e) => e.properties.plan === "PRO").length : 0,
    tagged: count >= 2 ? events.length : 0,
    signupReferrer: count >= 3 ? signUps : 0,
    browserKey: count >= 4 ? events.length : 0,
    stripped: count >= 5 ? events.length : 0
  }
}

const COUNT_QUERY = `SELECT
  count(),
  countIf(toString(properties.processed) = 'true'),
  countIf(properties.plan = 'pro'),
  countIf(properties.source = 'web/1.434.18'),
  countIf(event = 'signed_up' AND properties.signup_referrer IN ('$direct', 'news.example.com')),
  countIf(properties.browser_key = concat(lower(properties.$browser), '-', toString(properties.$browser_version))),
  countIf(properties.$current_url NOT LIKE '%?%' AND properties.price_band IN ('high', 'standard'))
FROM events`

/** The stored events must show every transformation's work, or the numbers are not for real work. */
const verify = async (server, phase, batches, count) => {
  const query = `${COUNT_QUERY} WHERE properties.phase = '${phase}'`
  const { results } = await apiCall(server, KEY, "POST", "/api/environments/1/query/", {
    query: { kind: "ZedQLQuery", query },
    refresh: "force_blocking"
  })
  const [total, processed, pro, tagged, signupReferrer, browserKey, stripped] = results[0].map(Number)
  const got = { total, processed, pro, tagged, signupReferrer, browserKey, stripped }
  const want = expected(batches, count)
  const wrong = Object.keys(want).filter((k) => got[k] !== want[k])
  if (wrong.length > 0)
    throw new Error(`${count} transformations: stored ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`)
  return got
}

/** Enables the first `count` transformations and disables the rest. */
const configure = async ({ server, ids }, count) => {
  for (const [i, id] of ids.entries())
    await apiCall(server, KEY, "PATCH", `/api/environments/1/zed_functions/${id}/`, { enabled: i < count })
}

/** Zed on a fresh store with the five transformations created, warmed up with all of them. */
const startZed = async (storage) => {
  const server = await startServer("./servers/zed.js", [storage], { BENCH_KEY: KEY, BENCH_TOKEN: TOKEN })
  const ids = []
  for (const fn of TRANSFORMATIONS) {
    ids.push(
      (
        await apiCall(server, KEY, "POST", "/api/environments/1/zed_functions/", {
          type: "transformation",
          enabled: true,
          ...fn
        })
      ).id
    )
  }
  // The first measured run must not pay for compiling the server's hot paths.
  await send(server, makeBatches(WARMUP_BATCHES * 5, "warmup", Date.now() - 2 * 86_400_000))
  return { server, ids }
}

/** Events per second for one configuration: fresh events, tagged with the run, checked once stored. */
const measure = async (zed, count, run) => {
  await configure(zed, count)
  // Each run's events are new (Zed skips uuids it has stored) and start well apart in time.
  const start = Date.now() - 86_400_000 + run * 3_600_000
  const phase = `run-${run}`
  const batches = makeBatches(BATCHES, phase, start)
  await send(zed.server, makeBatches(WARMUP_BATCHES, `warmup-${run}`, start - 600_000))
  const seconds = await send(zed.server, batches)
  return { rate: (BATCHES * BATCH) / seconds, stored: await verify(zed.server, phase, batches, count) }
}

const COUNTS = [0, 1, 5]
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export const run = async () => {
  const rows = []
  const checks = []
  for (const store of (process.env.BENCH_STORES ?? "PGlite,PostgreSQL server").split(",")) {
    const { cleanup, place } = storePlaces(store, SERVER_URL)
    // One store per database kind (an on-disk PGlite takes seconds to start): the configurations
    // take turns in it, the order reversed every other round so the growing table weighs on each
    // alike; ratios are taken within a round and their median reported.
    const rounds = []
    let zed
    try {
      zed = await startZed(await place())
      for (let round = 0; round < ROUNDS; round++) {
        const result = {}
        for (const count of round % 2 ? [...COUNTS].reverse() : COUNTS)
          result[count] = await measure(zed, count, round * COUNTS.length + COUNTS.indexOf(count))
        rounds.push(result)
      }
    } finally {
      zed?.server.stop()
      await cleanup()
    }
    for (const count of COUNTS) {
      const ratios = rounds.map((r) => r[count].rate / r[0].rate)
      rows.push([store, count, median(rounds.map((r) => r[count].rate)), median(ratios), ratios])
      checks.push(`${store}, ${count}: ${JSON.stringify(rounds[0][count].stored)}`)
    }
  }
  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; ${BATCHES * BATCH} events in ${BATCHES} \`/batch/\` requests of ${BATCH} (not historical) per run, ${CLIENTS} concurrent clients, ${USERS} distinct users; on-disk PGlite and a fresh database on the local PostgreSQL 15, one store each, the configurations taking turns in ${ROUNDS} rounds (order reversed every other round), medians reported.`,
    "",
    "| Store | Transformations | events/s | ratio to 0 (median) | the rounds' ratios |",
    "|---|---:|---:|---:|---|",
    ...rows.map(
      ([store, count, rate, ratio, ratios]) =>
        `| ${store} | ${count} | ${Math.round(rate)} | ${ratio.toFixed(2)} | ${ratios.map((r) => r.toFixed(2)).join(", ")} |`
    ),
    "",
    `Checked after every run through the query API (measured events: total, processed, plan 'pro', source tag, sign-up referrer, browser key, stripped URL); the first round's counts: ${checks.join("; ")}.`
  ].join("\n")
  record("transformations", table)
  return table
}

// Session recording ingest through /s/: one 50 MB recording (BENCH_RECORDING_MB to change) sent as
// posthog-js sends it, in gzip'd requests of about 0.9 MB of rrweb JSON each from concurrent
// clients, against a raw batched insert of the same request bodies into a plain bytea table of the
// same store, measured in one run, on PGlite and on the PostgreSQL server. Zed's memory is sampled
// during its ingest, and the recording's metadata is checked against what was sent.
import { fork } from "node:child_process"
import { cpus } from "node:os"
import { gzipSync } from "node:zlib"
import { apiCall, record, startServer, storePlaces } from "./lib.js"

const TOKEN = "phc_benchmark_project_token_0000000001"
const KEY = "phx_benchmark_key_00000000000000000001"
const MB = 1024 * 1024
const RECORDING_BYTES = Number(process.env.BENCH_RECORDING_MB ?? 50) * MB
// posthog-js's RECORDING_MAX_EVENT_SIZE: it flushes its buffer before it would grow past this.
const FLUSH_AT = 0.9 * MB
const CLIENTS = 4
const LIB_VERSION = "1.434.18"
const SERVER_URL = process.env.ZED_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"

/** mulberry32: the recording is the same for the same seed and start. */
const prng = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const WORDS = (
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore " +
  "magna aliqua shop cart checkout wool linen cotton jacket shirt trousers socks boots delivery returns size colour"
).split(" ")

/** A recording of `bytes` bytes of rrweb JSON, cut and wrapped into `/s/` request bodies as posthog-js does. */
export const makeRecording = ({ seed, start, bytes }) => {
  const random = prng(seed)
  const int = (below) => Math.floor(random() * below)
  const pick = (items) => items[int(items.length)]
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ")
  const hex = (n) => Array.from({ length: n }, () => int(16).toString(16)).join("")
  const uuid7 = (ms) => {
    const t = ms.toString(16).padStart(12, "0")
    return `${t.slice(0, 8)}-${t.slice(8)}-7${hex(3)}-${(8 + int(4)).toString(16)}${hex(3)}-${hex(12)}`
  }
  const sessionId = uuid7(start)
  const windowId = uuid7(start)
  const distinctId = uuid7(start)

  // DOM nodes as rrweb serializes them, numbered in document order.
  let nextId = 1
  const numbered = (node) => {
    node.id = nextId++
    for (const child of node.childNodes ?? []) numbered(child)
    return node
  }
  const el = (tagName, attributes, childNodes = []) => ({ type: 2, tagName, attributes, childNodes })
  const text = (textContent) => ({ type: 3, textContent })
  const card = (n) =>
    el("div", { class: "product-card", "data-product": String(n) }, [
      el("img", {
        src: `https://cdn.shop.example/products/${n}/thumb.webp`,
        alt: words(3),
        width: "240",
        height: "240",
        loading: "lazy"
      }),
      el("h3", { class: "product-card__title" }, [text(words(3))]),
      el("p", { class: "product-card__description" }, [text(words(18))]),
      el("span", { class: "price" }, [text(`€${(10 + int(190)).toFixed(2)}`)]),
      el("button", { class: "btn btn--primary", type: "button" }, [text("Add to cart")])
    ])
  const css = Array.from(
    { length: 600 },
    (_, i) => `.c${i}-${hex(4)}{margin:${int(32)}px ${int(32)}px;color:#${hex(6)};display:flex}`
  ).join("")
  const search = el("input", { type: "search", name: "q", placeholder: "Search", class: "search" })
  const grid = el(
    "main",
    { class: "product-grid" },
    Array.from({ length: 320 }, (_, n) => card(n))
  )
  const cartCount = text("0")
  const html = numbered({
    type: 0,
    childNodes: [
      { type: 1, name: "html", publicId: "", systemId: "" },
      el("html", { lang: "en" }, [
        el("head", {}, [
          el("meta", { charset: "utf-8" }),
          el("title", {}, [text("Shop — new arrivals")]),
          el("style", {}, [{ type: 3, textContent: css, isStyle: true }])
        ]),
        el("body", { class: "page page--listing" }, [
          el("header", { class: "site-header" }, [
            el(
              "nav",
              {},
              Array.from({ length: 24 }, (_, i) => el("a", { href: `/c/${i}` }, [text(words(2))]))
            ),
            search,
            el("span", { class: "cart-count" }, [cartCount])
          ]),
          grid
        ])
      ])
    ]
  })
  let cards = grid.childNodes.map((node) => node.id)

  // Incremental events a shopper makes: mouse moves, scrolls, clicks, typing, page mutations.
  const incremental = (data) => ({ type: 3, data })
  const event = () => {
    const r = random()
    if (r < 0.5) {
      return incremental({
        source: 1,
        positions: Array.from({ length: 4 + int(12) }, (_, i) => ({
          x: int(1440),
          y: int(900),
          id: pick(cards),
          timeOffset: -50 + i * 4
        }))
      })
    }
    if (r < 0.62) return incremental({ source: 3, id: 1, x: 0, y: int(20_000) })
    if (r < 0.68) return incremental({ source: 2, type: 2, id: pick(cards), x: int(1440), y: int(900), pointerType: 0 })
    if (r < 0.76) return incremental({ source: 5, text: words(1 + int(3)), isChecked: false, id: search.id })
    if (r < 0.77)
      return {
        type: 6,
        data: { plugin: "rrweb/console@1", payload: { level: "log", trace: [], payload: [`"${words(6)}"`] } }
      }
    if (r < 0.93) {
      return incremental({
        source: 0,
        texts: [{ id: cartCount.id, value: String(int(10)) }],
        attributes: [
          { id: pick(cards), attributes: { class: `product-card product-card--${pick(["hover", "active", "seen"])}` } }
        ],
        removes: [],
        adds: []
      })
    }
    // New products load and old ones leave: each node of an added subtree is an add of its own.
    const removed = cards.splice(0, 1 + int(3))
    const added = Array.from({ length: removed.length }, () => numbered(card(int(10_000))))
    cards = cards.concat(added.map((node) => node.id))
    const adds = added.flatMap((root) => {
      const flat = []
      const walk = (node, parentId) => {
        const { childNodes, ...rest } = node
        flat.push({ parentId, nextId: null, node: childNodes === undefined ? rest : { ...rest, childNodes: [] } })
        for (const child of childNodes ?? []) walk(child, node.id)
      }
      walk(root, grid.id)
      return flat
    })
    return incremental({
      source: 0,
      texts: [],
      attributes: [],
      removes: removed.map((id) => ({ parentId: grid.id, id })),
      adds
    })
  }

  // posthog-js's buffer: events are sized by their JSON, and the buffer is sent as one $snapshot
  // event before it would exceed FLUSH_AT (its size plus a byte per comma and the brackets).
  const bodies = []
  let buffer = { size: 0, data: [] }
  const flush = () => {
    const last = buffer.data[buffer.data.length - 1].timestamp
    const snapshot = {
      uuid: uuid7(last),
      event: "$snapshot",
      timestamp: new Date(last).toISOString(),
      properties: {
        token: TOKEN,
        distinct_id: distinctId,
        $session_id: sessionId,
        $window_id: windowId,
        $snapshot_bytes: buffer.size,
        $snapshot_data: buffer.data,
        $snapshot_host: "https://shop.example",
        $lib: "web",
        $lib_version: LIB_VERSION
      }
    }
    bodies.push(gzipSync(JSON.stringify([snapshot])))
    buffer = { size: 0, data: [] }
  }
  let timestamp = start
  let sent = 0
  let events = 0
  // What Zed's metadata counts as size: the JSONL lines `[window_id, event]` it stores.
  let lines = 0
  const add = (rrweb) => {
    const json = JSON.stringify(rrweb)
    if (buffer.data.length > 0 && buffer.size + json.length + 2 + buffer.data.length > FLUSH_AT) flush()
    buffer.size += json.length
    buffer.data.push(rrweb)
    const utf8 = Buffer.byteLength(json)
    sent += utf8
    lines += utf8 + windowId.length + 6
    events++
  }
  add({ type: 4, data: { href: "https://shop.example/new-arrivals", width: 1440, height: 900 }, timestamp })
  add({ type: 2, data: { node: html, initialOffset: { top: 0, left: 0 } }, timestamp })
  while (sent < bytes) {
    timestamp += 30 + int(41)
    add({ ...event(), timestamp })
  }
  flush()
  return {
    sessionId,
    bodies,
    bytes: sent,
    lines,
    events,
    fullSnapshotBytes: JSON.stringify(html).length,
    start,
    end: timestamp
  }
}

const send = async (server, body) => {
  const response = await fetch(`${server.url}/s/?compression=gzip-js&ip=0&_=${Date.now()}&ver=${LIB_VERSION}`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body
  })
  const answer = await response.text()
  if (response.status !== 200) throw new Error(`/s/ answered ${response.status}: ${answer}`)
}

/** The recording's metadata must count every event sent, and its size the bytes sent. */
const verify = async (server, recording) => {
  const meta = await apiCall(server, KEY, "GET", `/api/environments/1/session_recordings/${recording.sessionId}`)
  const problems = []
  if (meta.event_count !== recording.events)
    problems.push(`event_count ${meta.event_count}, but ${recording.events} events were sent`)
  if (!(Math.abs(meta.size - recording.lines) <= recording.lines * 0.02)) {
    problems.push(
      `size ${meta.size}, but ${recording.bytes} bytes of rrweb JSON were sent (${recording.lines} as JSONL lines)`
    )
  }
  if (problems.length > 0) throw new Error(`recording ${recording.sessionId}: ${problems.join("; ")}`)
  return meta
}

const zedRun = async (storage, recording, warmup) => {
  const server = await startServer("./servers/zed.js", [storage], { BENCH_KEY: KEY, BENCH_TOKEN: TOKEN })
  try {
    // posthog-js records only when the project says so; Zed stores what it is sent either way.
    await apiCall(server, KEY, "PATCH", "/api/projects/1/", { session_recording_opt_in: true })
    // Warm up on another session's recording.
    for (const body of warmup.bodies) await send(server, body)
    const stopSampling = await server.sampleMemory()
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < recording.bodies.length) await send(server, recording.bodies[next++])
      })
    )
    const seconds = (performance.now() - started) / 1000
    const memory = await stopSampling()
    return { seconds, memory, meta: await verify(server, recording) }
  } finally {
    server.stop()
  }
}

const rawRun = (storage, recording) =>
  new Promise((resolve, reject) => {
    const child = fork(new URL("./servers/rawChunks.js", import.meta.url), [storage], {
      stdio: "inherit",
      serialization: "advanced"
    })
    child.on("message", (message) => {
      if (message.ready) child.send({ chunks: recording.bodies, batch: CLIENTS, sessionId: recording.sessionId })
      else {
        child.kill()
        const sent = recording.bodies.reduce((sum, body) => sum + body.length, 0)
        if (message.bytes !== sent) reject(new Error(`the raw table holds ${message.bytes} bytes, not ${sent}`))
        else resolve(message.seconds)
      }
    })
    child.once("exit", (code) => code !== 0 && code !== null && reject(new Error(`raw insert exited with ${code}`)))
  })

const mb = (bytes) => (bytes / MB).toFixed(0)

export const run = async () => {
  const start = Date.now() - 24 * 3_600_000
  const recording = makeRecording({ seed: 1, start, bytes: RECORDING_BYTES })
  const warmup = makeRecording({ seed: 2, start, bytes: 2 * MB })
  const compressed = recording.bodies.reduce((sum, body) => sum + body.length, 0)
  const rows = []
  const metas = []
  for (const store of (process.env.BENCH_STORES ?? "PGlite,PostgreSQL server").split(",")) {
    const { cleanup, place } = storePlaces(store, SERVER_URL)
    // As bench/ingest.js: three rounds, Zed and raw alternating, the median ratio reported.
    const rounds = []
    try {
      for (let round = 0; round < 3; round++) {
        const raw = recording.bytes / (await rawRun(await place(), recording))
        const zed = await zedRun(await place(), recording, warmup)
        rounds.push({ ...zed, zed: recording.bytes / zed.seconds, raw, ratio: recording.bytes / zed.seconds / raw })
      }
    } finally {
      await cleanup()
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[1]
    const { memory } = median
    rows.push([
      store,
      (median.zed / MB).toFixed(1),
      (recording.bodies.length / median.seconds).toFixed(1),
      (median.raw / MB).toFixed(1),
      median.ratio.toFixed(2),
      rounds.map((r) => r.ratio.toFixed(2)).join(", "),
      `${mb(memory.rss)} → ${mb(memory.peakRss)}`,
      `${mb(memory.heapUsed)} → ${mb(memory.peakHeapUsed)}`
    ])
    metas.push(
      `${store}: event_count ${median.meta.event_count}, size ${median.meta.size}, message_count ${median.meta.message_count}`
    )
  }
  const table = [
    `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; one recording of ${(recording.bytes / MB).toFixed(1)} MB of rrweb JSON (${recording.events} events over ${Math.round((recording.end - recording.start) / 60_000)} minutes, a ${(recording.fullSnapshotBytes / 1024).toFixed(0)} KB full snapshot) in ${recording.bodies.length} gzip'd requests (${(compressed / MB).toFixed(1)} MB in all), ${CLIENTS} concurrent clients; on-disk PGlite and a fresh database on the local PostgreSQL 15. MB = 2^20 bytes.`,
    "",
    "| Store | Zed `/s/`, MB/s of rrweb JSON | requests/s | raw INSERT of the gzip'd bodies, MB/s | Zed / raw (median) | the three runs | Zed RSS, MB: before → peak | Zed heap used, MB: before → peak |",
    "|---|---:|---:|---:|---:|---|---:|---:|",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
    `The recording's metadata after the median run, checked against what was sent (${recording.events} events, ${recording.lines} bytes as JSONL lines): ${metas.join("; ")}.`
  ].join("\n")
  record("recordings", table)
  return table
}

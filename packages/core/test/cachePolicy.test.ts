import { describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import fc from "fast-check"
import {
  type CacheDecision,
  cacheExpiry,
  cacheTargetAge,
  decideCaching,
  intervalStaleness,
  isStale,
  nextAllowedClientRefresh,
  RefreshMode,
  refreshMode,
  ZEDQL_STALENESS
} from "../src/queries/cachePolicy.js"
import type { CachedResponse } from "../src/services/QueryCache.js"

// The refresh-mode cache policy of the query API (docs/zedql.md on `refresh` and caching),
// where the seed wins: force_cache answers from cache or a miss and never computes.

const MODES = RefreshMode.literals
const HOUR = 3_600_000
const REFRESHED = new Date("2025-01-01T12:00:00Z")
const at = (ms: number) => new Date(REFRESHED.getTime() + ms)
const entry = (lastRefresh = REFRESHED): CachedResponse => ({
  key: "cache_k",
  response: { results: [[1]], last_refresh: lastRefresh.toISOString() },
  lastRefresh,
  expiresAt: cacheExpiry(lastRefresh)
})

/** A decision in a word: what answers, and what runs in the background alongside. */
const summary = (decision: CacheDecision): string => {
  switch (decision._tag) {
    case "Compute":
      return "compute"
    case "Cached":
      return decision.background === "none" ? "cache" : `cache+${decision.background}`
    case "Miss":
      return decision.background === "none" ? "miss" : `miss+${decision.background}`
    case "Status":
      return `status+${decision.background}`
  }
}

describe("refresh values", () => {
  it("maps the request's refresh and legacy async to a mode", () => {
    expect(refreshMode(undefined)).toBe("blocking")
    expect(refreshMode(null)).toBe("blocking")
    expect(refreshMode(false)).toBe("blocking")
    expect(refreshMode(true)).toBe("force_blocking")
    for (const mode of MODES) expect(refreshMode(mode)).toBe(mode)
    expect(refreshMode(undefined, true)).toBe("async")
    expect(refreshMode("force_blocking", true)).toBe("async")
    expect(refreshMode("force_cache", false)).toBe("force_cache")
  })
})

describe("staleness", () => {
  it("ZedQL: the day row, 6 h (12 h lazily) after the refresh; clients may refresh after a minute", () => {
    expect(cacheTargetAge(REFRESHED, ZEDQL_STALENESS, "blocking")).toEqual(new Date("2025-01-01T18:00:00Z"))
    expect(cacheTargetAge(REFRESHED, ZEDQL_STALENESS, "async")).toEqual(new Date("2025-01-01T18:00:00Z"))
    expect(cacheTargetAge(REFRESHED, ZEDQL_STALENESS, "lazy_async")).toEqual(new Date("2025-01-02T00:00:00Z"))
    expect(nextAllowedClientRefresh(REFRESHED)).toEqual(new Date("2025-01-01T12:01:00Z"))
    expect(cacheExpiry(REFRESHED)).toEqual(new Date("2025-01-08T12:00:00Z"))
  })

  it("stale only once past the target age; never when the range ended more than 10 s before the refresh", () => {
    const query = (dateTo: Date | null) => ({ staleness: ZEDQL_STALENESS, dateTo })
    expect(isStale(REFRESHED, at(6 * HOUR), query(null), "blocking")).toBe(false)
    expect(isStale(REFRESHED, at(6 * HOUR + 1), query(null), "blocking")).toBe(true)
    expect(isStale(REFRESHED, at(12 * HOUR), query(null), "lazy_async")).toBe(false)
    expect(isStale(REFRESHED, at(12 * HOUR + 1), query(null), "lazy_async")).toBe(true)
    expect(isStale(REFRESHED, at(1000 * HOUR), query(at(-10_001)), "blocking")).toBe(false)
    expect(isStale(REFRESHED, at(6 * HOUR + 1), query(at(-10_000)), "blocking")).toBe(true)
    expect(isStale(REFRESHED, at(6 * HOUR + 1), query(at(HOUR)), "blocking")).toBe(true)
  })
})

describe("decision table", () => {
  // The cached entry, by what its query's date range says about it.
  const KINDS = {
    none: null,
    // A range still open (no date_to, or one after the refresh): goes stale with age.
    open: null,
    "open until later": at(HOUR),
    // date_to exactly 10 s before the refresh: inside the write lag, so it still goes stale.
    "ended at the lag": at(-10_000),
    // date_to more than 10 s before the refresh: never stale.
    ended: at(-10_001)
  } as const
  type Kind = keyof typeof KINDS

  // How old the entry is, around both target ages (6 h and lazy 12 h).
  const AGES = {
    "just before 6 h": 6 * HOUR - 1,
    "at 6 h": 6 * HOUR,
    "just after 6 h": 6 * HOUR + 1,
    "just before 12 h": 12 * HOUR - 1,
    "at 12 h": 12 * HOUR,
    "just after 12 h": 12 * HOUR + 1
  } as const
  type Age = keyof typeof AGES

  // The entry's state at that age, for the normal (6 h) and lazy (12 h) thresholds: fresh until
  // the target age has passed, whatever the age if the range had ended.
  type State = "miss" | "fresh" | "stale"
  const STATE: Record<Exclude<Kind, "none">, Record<Age, readonly [normal: State, lazy: State]>> = {
    open: {
      "just before 6 h": ["fresh", "fresh"],
      "at 6 h": ["fresh", "fresh"],
      "just after 6 h": ["stale", "fresh"],
      "just before 12 h": ["stale", "fresh"],
      "at 12 h": ["stale", "fresh"],
      "just after 12 h": ["stale", "stale"]
    },
    "open until later": {
      "just before 6 h": ["fresh", "fresh"],
      "at 6 h": ["fresh", "fresh"],
      "just after 6 h": ["stale", "fresh"],
      "just before 12 h": ["stale", "fresh"],
      "at 12 h": ["stale", "fresh"],
      "just after 12 h": ["stale", "stale"]
    },
    "ended at the lag": {
      "just before 6 h": ["fresh", "fresh"],
      "at 6 h": ["fresh", "fresh"],
      "just after 6 h": ["stale", "fresh"],
      "just before 12 h": ["stale", "fresh"],
      "at 12 h": ["stale", "fresh"],
      "just after 12 h": ["stale", "stale"]
    },
    ended: {
      "just before 6 h": ["fresh", "fresh"],
      "at 6 h": ["fresh", "fresh"],
      "just after 6 h": ["fresh", "fresh"],
      "just before 12 h": ["fresh", "fresh"],
      "at 12 h": ["fresh", "fresh"],
      "just after 12 h": ["fresh", "fresh"]
    }
  }

  // What each mode does in each state, without / with a background computation under way. A fresh
  // hit carries the running computation's status; a running computation is joined, never doubled.
  const OUTCOME: Record<RefreshMode, Record<State, readonly [idle: string, running: string]>> = {
    // Fresh cache, else compute now.
    blocking: { miss: ["compute", "compute"], fresh: ["cache", "cache+join"], stale: ["compute", "compute"] },
    // Fresh cache, else a background computation: a miss answers the miss, a stale hit the stale result.
    async: { miss: ["miss+start", "miss+join"], fresh: ["cache", "cache+join"], stale: ["cache+start", "cache+join"] },
    // As async, with the lazy threshold.
    lazy_async: {
      miss: ["miss+start", "miss+join"],
      fresh: ["cache", "cache+join"],
      stale: ["cache+start", "cache+join"]
    },
    // Async when stale, blocking on a miss.
    async_except_on_cache_miss: {
      miss: ["compute", "compute"],
      fresh: ["cache", "cache+join"],
      stale: ["cache+start", "cache+join"]
    },
    // Always compute now.
    force_blocking: { miss: ["compute", "compute"], fresh: ["compute", "compute"], stale: ["compute", "compute"] },
    // Always in the background, answering only its status.
    force_async: {
      miss: ["status+start", "status+join"],
      fresh: ["status+start", "status+join"],
      stale: ["status+start", "status+join"]
    },
    // Whatever is cached, stale or not, else a miss; never computes.
    force_cache: { miss: ["miss", "miss+join"], fresh: ["cache", "cache+join"], stale: ["cache", "cache+join"] }
  }

  const cases = MODES.flatMap((mode) =>
    (Object.keys(KINDS) as Array<Kind>).flatMap((kind) =>
      (Object.keys(AGES) as Array<Age>).flatMap((age) =>
        [false, true].map((running) => {
          const state: State = kind === "none" ? "miss" : STATE[kind][age][mode === "lazy_async" ? 1 : 0]
          return { mode, kind, age, running, expected: OUTCOME[mode][state][running ? 1 : 0] }
        })
      )
    )
  )

  it("covers every mode, entry, age and background", () => {
    expect(cases).toHaveLength(7 * 5 * 6 * 2)
    expect(new Set(cases.map((c) => c.expected))).toEqual(
      new Set([
        "compute",
        "cache",
        "cache+join",
        "cache+start",
        "miss",
        "miss+join",
        "miss+start",
        "status+start",
        "status+join"
      ])
    )
  })

  it.each(cases)(
    "$mode, $kind entry, $age, running: $running → $expected",
    ({ age, expected, kind, mode, running }) => {
      const cached = kind === "none" ? null : entry()
      const decision = decideCaching({
        mode,
        cached,
        now: at(AGES[age]),
        query: { staleness: ZEDQL_STALENESS, dateTo: kind === "none" ? null : KINDS[kind] },
        backgroundRunning: running
      })
      expect(summary(decision)).toBe(expected)
      if (decision._tag === "Cached") expect(decision.entry).toBe(cached)
    }
  )
})

describe("invariants", () => {
  const duration = fc.integer({ min: 1, max: 30 * 24 * HOUR }).map(Duration.millis)
  const situation = fc.record({
    mode: fc.constantFrom(...MODES),
    cached: fc.option(
      fc.integer({ min: -60 * 24 * HOUR, max: 0 }).map((ms) => entry(at(ms))),
      { nil: null }
    ),
    now: fc.integer({ min: 0, max: 60 * 24 * HOUR }).map(at),
    query: fc.record({
      staleness: fc
        .tuple(duration, duration)
        .map(([a, b]) => ({ normal: Duration.min(a, b), lazy: Duration.max(a, b) })),
      dateTo: fc.option(fc.integer({ min: -90 * 24 * HOUR, max: 90 * 24 * HOUR }).map(at), { nil: null })
    }),
    backgroundRunning: fc.boolean()
  })
  type Situation = typeof situation extends fc.Arbitrary<infer A> ? A : never
  const fresh = (s: Situation) => s.cached !== null && !isStale(s.cached.lastRefresh, s.now, s.query, s.mode)
  const starts = (d: CacheDecision) => "background" in d && d.background === "start"
  const joins = (d: CacheDecision) => "background" in d && d.background === "join"

  it("force_cache never computes nor starts a computation", () => {
    fc.assert(
      fc.property(situation, (s) => {
        const d = decideCaching({ ...s, mode: "force_cache" })
        expect(d._tag === "Compute" || starts(d)).toBe(false)
        expect(d._tag).toBe(s.cached === null ? "Miss" : "Cached")
      })
    )
  })

  it("force_blocking always computes now; force_async always answers a background status", () => {
    fc.assert(
      fc.property(situation, (s) => {
        expect(decideCaching({ ...s, mode: "force_blocking" })._tag).toBe("Compute")
        expect(decideCaching({ ...s, mode: "force_async" })._tag).toBe("Status")
      })
    )
  })

  it("a fresh hit answers every mode that does not force, with that entry and nothing started", () => {
    fc.assert(
      fc.property(situation, (s) => {
        fc.pre(fresh(s) && !s.mode.startsWith("force_"))
        expect(decideCaching(s)).toEqual({
          _tag: "Cached",
          entry: s.cached,
          background: s.backgroundRunning ? "join" : "none"
        })
      })
    )
  })

  it("a computation is started only when none runs, and joined only when one does", () => {
    fc.assert(
      fc.property(situation, (s) => {
        const d = decideCaching(s)
        if (starts(d)) expect(s.backgroundRunning).toBe(false)
        if (joins(d)) expect(s.backgroundRunning).toBe(true)
        if (s.backgroundRunning && d._tag !== "Compute") expect(joins(d)).toBe(true)
      })
    )
  })

  it("the async modes never compute now, except async_except_on_cache_miss on a miss", () => {
    fc.assert(
      fc.property(situation, (s) => {
        fc.pre(s.mode === "async" || s.mode === "lazy_async" || s.mode === "async_except_on_cache_miss")
        expect(decideCaching(s)._tag === "Compute").toBe(s.mode === "async_except_on_cache_miss" && s.cached === null)
      })
    )
  })

  it("time only makes an entry staler: what is fresh later was fresh earlier", () => {
    fc.assert(
      fc.property(situation, fc.integer({ min: 0, max: 30 * 24 * HOUR }), (s, earlier) => {
        fc.pre(fresh(s))
        expect(
          fresh({ ...s, now: new Date(Math.max(s.cached!.lastRefresh.getTime(), s.now.getTime() - earlier)) })
        ).toBe(true)
      })
    )
  })

  it("a range that ended before the refresh keeps its result fresh forever", () => {
    fc.assert(
      fc.property(situation, fc.integer({ min: 10_001, max: 90 * 24 * HOUR }), (s, before) => {
        fc.pre(s.cached !== null)
        const ended = { ...s, query: { ...s.query, dateTo: new Date(s.cached!.lastRefresh.getTime() - before) } }
        expect(fresh(ended)).toBe(true)
      })
    )
  })
})

describe("intervalStaleness", () => {
  it("gives an insight's interval PostHog's thresholds, normal and lazy, a day's for anything else", () => {
    const hours = (interval: string | null | undefined) => {
      const { lazy, normal } = intervalStaleness(interval)
      return [Duration.toHours(normal), Duration.toHours(lazy)]
    }
    expect(hours("minute")).toEqual([5 / 60, 15 / 60])
    expect(hours("hour")).toEqual([1, 2])
    expect(hours("Day")).toEqual([6, 12])
    expect(hours("week")).toEqual([24, 24])
    expect(hours("Month")).toEqual([24, 24])
    for (const other of [null, undefined, "quarter", "constructor"]) expect(hours(other)).toEqual([6, 12])
  })
})

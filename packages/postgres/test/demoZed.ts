import { afterAll, beforeAll, expect } from "@effect/vitest"
import { createZed, demoEvents, loadDemoData, type Zed } from "@zed/core"
import type { InsightPlan } from "../../core/src/insights/plan.js"
import { formatSelect } from "../../core/src/zedql/format.js"
import { backends } from "./backends.js"
import { demoModel } from "./corpus/model.js"

// A Zed on a SQL store with the demo data loaded in a project of the given time zone, and an
// insight plan run the way the insight runner runs one: each statement through the query API as
// a ZedQLQuery, the rows given to the plan's `shape`.

const ADMIN_KEY = "phx_insightsadminkey000000000000000000000000"
const PROJECT_KEY = "phc_insightsprojectkey00000000000000000000000"

export interface DemoOptions {
  readonly events: number
  readonly seed: number
  readonly end: Date
  readonly days: number
}

export const demoZed = (name: string, demo: DemoOptions, timeZone: string) => {
  const model = demoModel([...demoEvents(demo)], timeZone)
  let zed: Zed
  let cleanup: () => Promise<void>

  const request = async (method: string, path: string, body: unknown) => {
    const response = await zed.handler(
      new Request(`http://zed.test${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    )
    return { status: response.status, json: await response.json() }
  }

  beforeAll(async () => {
    const backend = await backends(`insights-${timeZone.replace(/\W/g, "")}`)[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    expect(await loadDemoData(zed, demo)).toBe(demo.events)
    const patched = await request("PATCH", "/api/projects/1/", { timezone: timeZone })
    expect(patched.json.timezone).toBe(timeZone)
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup?.()
  })

  /** The plan's result, its statements run through the query API. */
  const run = async (plan: InsightPlan): Promise<unknown> => {
    const results = []
    for (const query of plan.queries) {
      const { json, status } = await request("POST", "/api/environments/1/query/", {
        query: { kind: "ZedQLQuery", query: formatSelect(query), values: plan.values },
        refresh: "force_blocking"
      })
      expect(status, JSON.stringify(json)).toBe(200)
      expect(json.hasMore ?? false).toBe(false)
      results.push(json.results as Array<Array<unknown>>)
    }
    return plan.shape(results)
  }

  return { model, run, request }
}

/** The median as Postgres's `percentile_cont(0.5)` takes it: the mean of the middle two of an even count. */
export const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export const mean = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length

/**
 * A day's lifecycle counts from who was active that day and the day before: `new` when `isNew`
 * (first seen that day), `returning` when active the day before too, else `resurrecting`;
 * `dormant` (negative) active the day before only.
 */
export const lifecycleCounts = <P>(today: ReadonlySet<P>, yesterday: ReadonlySet<P>, isNew: (p: P) => boolean) => {
  const counts = { new: 0, returning: 0, resurrecting: 0, dormant: -[...yesterday].filter((p) => !today.has(p)).length }
  for (const p of today) {
    if (isNew(p)) counts.new++
    else if (yesterday.has(p)) counts.returning++
    else counts.resurrecting++
  }
  return counts
}

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { PostHog } from "posthog-node"
import { api, startZed } from "./processes.js"

// The standalone server with events on chDB (`ZED_EVENTS=chdb`), as an operator runs it: posthog-node
// captures and identifies, the query API and an insight read what it sent, and all of it is still
// there after a restart.

const dir = mkdtempSync(join(tmpdir(), "zed-serve-chdb-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ENV = { ZED_DATA_DIR: dir, ZED_EVENTS: "chdb", ZED_GEOIP: "false" }

describe("zed serve with events on chDB", () => {
  it("stores what posthog-node sends in chDB, answers ZedQL and insights from it, and keeps it across restarts", async () => {
    const first = await startZed(ENV)
    const { personal_api_key: key, project_api_key: token } = JSON.parse(
      readFileSync(join(dir, "credentials.json"), "utf8")
    )
    const zedql = async (url: string, query: string) => {
      const response = await api(`${url}/api/environments/1/query/`, key, {
        method: "POST",
        body: JSON.stringify({ query: { kind: "ZedQLQuery", query } })
      })
      expect(response.status, JSON.stringify(response.json)).toBe(200)
      return response.json.results
    }
    try {
      expect(existsSync(join(dir, "chdb"))).toBe(true)
      const posthog = new PostHog(token, { host: first.url, flushAt: 100, flushInterval: 0 })
      posthog.capture({
        distinctId: "anon-1",
        event: "$pageview",
        properties: { $current_url: "https://example.com/pricing" }
      })
      posthog.identify({ distinctId: "ada@example.com", properties: { $anon_distinct_id: "anon-1", plan: "pro" } })
      posthog.capture({ distinctId: "ada@example.com", event: "signed_up", properties: { plan: "pro" } })
      posthog.capture({ distinctId: "bob", event: "$pageview", properties: { $current_url: "https://example.com/" } })
      await posthog.shutdown()

      expect(await zedql(first.url, "SELECT event, count() FROM events GROUP BY event ORDER BY event")).toEqual([
        ["$identify", 1],
        ["$pageview", 2],
        ["signed_up", 1]
      ])
      // The anonymous pageview belongs to Ada, found through her distinct ids and person properties.
      expect(
        await zedql(
          first.url,
          "SELECT person.properties.plan, count() FROM events WHERE event = '$pageview' GROUP BY 1 ORDER BY 1"
        )
      ).toEqual([
        ["pro", 1],
        [null, 1]
      ])

      const insight = await api(`${first.url}/api/projects/1/insights/`, key, {
        method: "POST",
        body: JSON.stringify({
          name: "Pageviews",
          query: {
            kind: "InsightVizNode",
            source: {
              kind: "TrendsQuery",
              series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
              dateRange: { date_from: "-7d" }
            }
          }
        })
      })
      expect(insight.status, JSON.stringify(insight.json)).toBe(201)
      const computed = await api(`${first.url}/api/projects/1/insights/${insight.json.id}/?refresh=force_blocking`, key)
      expect(computed.json.result[0].count).toBe(2)
    } finally {
      expect(await first.stop()).toBe(0)
    }

    const second = await startZed(ENV)
    try {
      expect(await zedql(second.url, "SELECT count() FROM events")).toEqual([[4]])
    } finally {
      await second.stop()
    }
  })
})

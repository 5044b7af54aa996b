import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Zed } from "../src/index.js"
import { uuidv7 } from "../src/storage.js"
import { call, issueKey, memoryZed, PROJECT_KEY } from "./support.js"

// Heatmaps from what posthog-js sends: `$$heatmap` events carrying clicks and mouse moves per URL,
// and page views carrying the previous page's scroll depth; read back as PostHog's toolbar asks.

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const PAGE = "https://shop.example/products/1"
const OTHER = "https://shop.example/products/22"

/** A `$$heatmap` event as posthog-js flushes it. */
const heatmapEvent = (
  who: string,
  data: Record<string, Array<Record<string, unknown>>>,
  viewport = { $viewport_width: 1280, $viewport_height: 800 },
  uuid = uuidv7()
) => ({
  uuid,
  event: "$$heatmap",
  properties: { distinct_id: who, $session_id: `s-${who}`, $current_url: PAGE, ...viewport, $heatmap_data: data }
})

const capture = async (events: ReadonlyArray<Record<string, unknown>>) => {
  const res = await call(zed, "/i/v0/e/", {
    method: "POST",
    key: null,
    body: JSON.stringify({ api_key: PROJECT_KEY, batch: events })
  })
  expect(res.status, res.text).toBe(200)
}

const heatmap = (query: string) => call(zed, `/api/environments/1/heatmaps/?${query}`)

const clicks = (x: number, y: number, n = 1, fixed = false, type = "click") =>
  Array.from({ length: n }, () => ({ x, y, target_fixed: fixed, type }))

describe("heatmaps", () => {
  it("aggregates clicks by place for an exact URL, in posthog-js's scale, counted or by person", async () => {
    const resent = heatmapEvent("ann", {
      [PAGE]: [
        ...clicks(640, 100, 2),
        ...clicks(10, 20, 1, true),
        ...clicks(640, 100, 1, false, "rageclick"),
        ...clicks(300, 300, 1, false, "mousemove")
      ],
      [OTHER]: clicks(5, 5)
    })
    await capture([
      resent,
      heatmapEvent("bob", { [PAGE]: clicks(641, 103) }),
      // A narrow screen.
      heatmapEvent("cat", { [PAGE]: clicks(100, 50) }, { $viewport_width: 390, $viewport_height: 844 }),
      // No viewport: PostHog keeps no points.
      { event: "$$heatmap", properties: { distinct_id: "dan", $heatmap_data: { [PAGE]: clicks(1, 1) } } }
    ])
    // An SDK retry of a stored event adds nothing.
    await capture([resent])

    const res = await heatmap(`url_exact=${encodeURIComponent(PAGE)}`)
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get("cache-control")).toBe("max-age=30")
    expect(res.json.results).toEqual(
      [
        { pointer_target_fixed: false, pointer_relative_x: 0.5, pointer_y: 96, count: 3 },
        { pointer_target_fixed: false, pointer_relative_x: 0.25, pointer_y: 48, count: 1 },
        { pointer_target_fixed: true, pointer_relative_x: 0.01, pointer_y: 16, count: 1 }
      ].sort(
        (a, b) =>
          b.count - a.count ||
          Number(a.pointer_target_fixed) - Number(b.pointer_target_fixed) ||
          a.pointer_relative_x - b.pointer_relative_x
      )
    )
    const people = await heatmap(`url_exact=${encodeURIComponent(PAGE)}&aggregation=unique_visitors`)
    expect(people.json.results.find((p: { pointer_y: number }) => p.pointer_y === 96).count).toBe(2)
    const rage = await heatmap(`url_exact=${encodeURIComponent(PAGE)}&type=rageclick`)
    expect(rage.json.results).toEqual([
      { pointer_target_fixed: false, pointer_relative_x: 0.5, pointer_y: 96, count: 1 }
    ])
    // Desktop widths only.
    const wide = await heatmap(`url_exact=${encodeURIComponent(PAGE)}&viewport_width_min=1024`)
    expect(wide.json.results.map((p: { pointer_relative_x: number }) => p.pointer_relative_x)).not.toContain(0.25)
    // A pattern covers both products; anchored, `*` is one character or more.
    const pattern = await heatmap(`url_pattern=${encodeURIComponent("https://shop.example/products/*")}`)
    expect(pattern.json.results.reduce((n: number, p: { count: number }) => n + p.count, 0)).toBe(6)
    const one = await heatmap(`url_pattern=${encodeURIComponent("https://shop.example/products/\\d")}`)
    expect(one.json.results.reduce((n: number, p: { count: number }) => n + p.count, 0)).toBe(5)

    // The event is stored without its raw points.
    const events = await call(zed, "/api/environments/1/events/?event=%24%24heatmap&limit=10")
    expect(events.json.results.length).toBeGreaterThan(0)
    for (const e of events.json.results) expect(e.properties.$heatmap_data).toBeUndefined()
  })

  it("counts how far down a page people scrolled, from the next page view", async () => {
    const scrolled = (who: string, depth: number) => ({
      event: "$pageview",
      properties: {
        distinct_id: who,
        $current_url: "https://shop.example/checkout",
        $viewport_width: 1280,
        $viewport_height: 800,
        $prev_pageview_pathname: "/blog/post",
        $prev_pageview_max_scroll: depth
      }
    })
    await capture([scrolled("ann", 0), scrolled("bob", 400), scrolled("cat", 1250)])
    const res = await heatmap(`type=scrolldepth&url_exact=${encodeURIComponent("https://shop.example/blog/post")}`)
    expect(res.status, res.text).toBe(200)
    // Depth = (scroll + viewport height), in 100-pixel buckets: 800, 1200, 2048.
    expect(res.json.results).toEqual([
      { scroll_depth_bucket: 800, bucket_count: 1, cumulative_count: 3 },
      { scroll_depth_bucket: 1200, bucket_count: 1, cumulative_count: 2 },
      { scroll_depth_bucket: 2000, bucket_count: 1, cumulative_count: 1 }
    ])
  })

  it("takes dates in the project's time zone and refuses bad parameters with a 400 naming them", async () => {
    const url = `url_exact=${encodeURIComponent(PAGE)}`
    expect((await heatmap(`${url}&date_from=2000-01-01&date_to=2000-01-02`)).json.results).toEqual([])
    expect((await heatmap(`${url}&date_from=-1d`)).json.results.length).toBeGreaterThan(0)
    const cases: Array<[string, string]> = [
      ["type=hover&" + url, "type"],
      [`${url}&date_from=yesterday`, "date_from"],
      [`${url}&date_from=2030-01-02&date_to=2030-01-01`, "date_from"],
      [`${url}&viewport_width_min=900&viewport_width_max=300`, "viewport_width_min"],
      [`${url}&viewport_width_min=wide`, "viewport_width_min"],
      [`url_pattern=${encodeURIComponent("https://(")}`, "url_pattern"],
      ["type=click", "url_exact"]
    ]
    for (const [query, attr] of cases) {
      const res = await heatmap(query)
      expect(res.status, query).toBe(400)
      expect(res.json, query).toMatchObject({ type: "validation_error", attr })
    }
    const readOnly = await issueKey(zed, ["insight:read"])
    expect((await call(zed, `/api/environments/1/heatmaps/?${url}`, { key: readOnly })).status).toBe(403)
    expect(
      (await call(zed, `/api/environments/1/heatmaps/?${url}`, { key: await issueKey(zed, ["heatmap:read"]) })).status
    ).toBe(200)
  })
})

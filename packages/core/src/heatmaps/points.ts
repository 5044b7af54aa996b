import { isObject } from "../domain/json.js"
import type { IncomingEvent } from "../ingest/normalize.js"

// Heatmap points from events, as PostHog's ingestion extracts them: posthog-js batches clicks, rage
// clicks, dead clicks and mouse moves per URL into `$heatmap_data` of `$$heatmap` events, and a
// page view's `$prev_pageview_*` properties say how far down the previous page was scrolled.
// Coordinates and the viewport are kept divided by SCALE_FACTOR, PostHog's resolution.

export const SCALE_FACTOR = 16
/** Most points taken from one event (a page's buffer between flushes is far smaller). */
export const MAX_POINTS_PER_EVENT = 10_000
const MAX_TYPE_LENGTH = 64
const MAX_URL_LENGTH = 8192

export interface HeatmapPoint {
  readonly event_uuid: string
  /** The point's place among its event's points. */
  readonly ordinal: number
  readonly timestamp: Date
  readonly session_id: string | null
  readonly distinct_id: string
  readonly type: string
  readonly x: number
  readonly y: number
  readonly scale_factor: number
  readonly viewport_width: number
  readonly viewport_height: number
  readonly pointer_target_fixed: boolean
  readonly current_url: string
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)

/** The previous page's URL: this page's with the previous path. */
const previousUrl = (current: string, pathname: string) => {
  try {
    const url = new URL(current)
    url.pathname = pathname
    return url.toString()
  } catch {
    return undefined
  }
}

interface Raw {
  readonly url: string
  readonly x: unknown
  readonly y: unknown
  readonly type: unknown
  readonly fixed: unknown
}

const raws = (properties: Record<string, unknown>): Array<Raw> => {
  const data = properties["$heatmap_data"]
  const found: Array<Raw> = []
  if (isObject(data)) {
    for (const [url, items] of Object.entries(data)) {
      if (!Array.isArray(items)) continue
      for (const item of items) {
        if (isObject(item))
          found.push({ url, x: item["x"], y: item["y"], type: item["type"], fixed: item["target_fixed"] })
      }
    }
  }
  const [pathname, current] = [properties["$prev_pageview_pathname"], properties["$current_url"]]
  if (typeof pathname === "string" && typeof current === "string") {
    const url = previousUrl(current, pathname)
    if (url !== undefined)
      found.push({ url, x: 0, y: properties["$prev_pageview_max_scroll"], type: "scrolldepth", fixed: false })
  }
  return found
}

/** The event's heatmap points; none without a viewport to place them in. */
export const heatmapPoints = (event: IncomingEvent): ReadonlyArray<HeatmapPoint> => {
  const { properties } = event
  if (properties["$heatmap_data"] === undefined && properties["$prev_pageview_pathname"] === undefined) return []
  const [width, height] = [properties["$viewport_width"], properties["$viewport_height"]]
  if (!finite(width) || !finite(height)) return []
  const session = properties["$session_id"]
  const scaled = (n: number) => Math.round(n / SCALE_FACTOR)
  return raws(properties)
    .filter(
      (p) =>
        finite(p.x) &&
        finite(p.y) &&
        typeof p.type === "string" &&
        p.type !== "" &&
        p.type.length <= MAX_TYPE_LENGTH &&
        p.url.trim() !== "" &&
        p.url.length <= MAX_URL_LENGTH
    )
    .slice(0, MAX_POINTS_PER_EVENT)
    .map((p, ordinal) => ({
      event_uuid: event.uuid,
      ordinal,
      timestamp: event.timestamp,
      session_id: typeof session === "string" ? session : null,
      distinct_id: event.distinct_id,
      type: p.type as string,
      x: scaled(p.x as number),
      y: scaled(p.y as number),
      scale_factor: SCALE_FACTOR,
      viewport_width: scaled(width),
      viewport_height: scaled(height),
      pointer_target_fixed: p.fixed === true,
      current_url: p.url
    }))
}

/** The event's properties as stored: the points live apart, so their raw data is not kept twice. */
export const storedProperties = (properties: Record<string, unknown>): Record<string, unknown> => {
  if (!("$heatmap_data" in properties)) return properties
  const { $heatmap_data: _, ...rest } = properties
  return rest
}

import { Effect, Schema } from "effect"
import type { Project } from "../../domain/models.js"
import { compilePattern, searchPattern } from "../../flags/regex.js"
import { SCALE_FACTOR } from "../../heatmaps/points.js"
import { HeatmapStore } from "../../services/HeatmapStore.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { Reply } from "../reply.js"
import { environmentRoute } from "../route.js"
import { dateInZone, IntFromString } from "../../schema/fields.js"

// Heatmaps as PostHog's toolbar asks for them: the points of one page (an exact URL, or a pattern
// of URLs) of one type in a date range and viewport width range, counted by place, or for scroll
// depth by how far down the page people got, with the share that got at least that far.

const TYPES = ["click", "rageclick", "deadclick", "mousemove", "scrolldepth"] as const
/** Most URLs a pattern is tried against, and most places answered. */
const MAX_URLS = 10_000
const MAX_RESULTS = 50_000
const DAY_MS = 86_400_000
/** Longest a heatmap's reads may take before the request is answered 400. */
const TIMEOUT = "30 seconds"

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

const Query = Schema.Struct({
  type: Schema.optional(Schema.Literal(...TYPES)),
  date_from: Schema.optional(
    Schema.String.annotations({ description: "A date (2024-01-31) or a relative date (-7d); default -7d." })
  ),
  date_to: Schema.optional(
    Schema.String.annotations({ description: "A date (that whole day is included) or a relative date; default now." })
  ),
  url_exact: Schema.optional(Schema.String),
  url_pattern: Schema.optional(
    Schema.String.annotations({
      description: "A regular expression matching whole URLs; `*` not after `.` matches one character or more."
    })
  ),
  viewport_width_min: Schema.optional(IntFromString(0)),
  viewport_width_max: Schema.optional(IntFromString(0)),
  aggregation: Schema.optional(Schema.Literal("total_count", "unique_visitors"))
})

const DATE_ONLY = /^\d{4}-\d{1,2}-\d{1,2}$/

/** An instant of the range: a date's midnight in the project's time zone (the day after for an end), or a relative date. */
const instantOf = (project: Project, text: string, attr: string, end: boolean, now: Date) =>
  Effect.map(dateInZone(text, project.timezone, now, attr), (date) =>
    end && DATE_ONLY.test(text) ? new Date(date.getTime() + DAY_MS) : date
  )

/** PostHog's reading of a URL pattern: anchored at both ends, and `*` (not after `.`) as `.+`. */
const anchored = (pattern: string) => {
  const whole = `${pattern.startsWith("^") ? "" : "^"}${pattern}${pattern.endsWith("$") ? "" : "$"}`
  return [...whole].map((c, i) => (c === "*" && i > 0 && whole[i - 1] !== "." ? ".+" : c)).join("")
}

/** A read that takes too long ends the request with a 400 saying how to narrow it. */
const limited = <A, E, R>(read: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(read, {
    duration: TIMEOUT,
    onTimeout: () =>
      new ValidationError({
        code: "query_timeout",
        detail: `The heatmap took longer than ${TIMEOUT}: narrow the date range or the URL pattern.`,
        attr: null
      })
  })

const Point = Schema.Struct({
  count: Schema.Int,
  pointer_y: Schema.Number,
  pointer_relative_x: Schema.Number,
  pointer_target_fixed: Schema.Boolean
})
const Depth = Schema.Struct({ cumulative_count: Schema.Int, bucket_count: Schema.Int, scroll_depth_bucket: Schema.Int })

export const heatmapRoutes = [
  environmentRoute({
    method: "GET",
    path: "/heatmaps",
    tag: "heatmaps",
    summary: "Heatmap points of a page, as PostHog's toolbar reads them",
    description: `\`url_exact\` or \`url_pattern\` names the page; \`type\` (default click) one of ${TYPES.join(", ")}. Points are counted (or, with \`aggregation=unique_visitors\`, the people who made them) by place: \`pointer_relative_x\` (share of the viewport width, two decimals), \`pointer_y\` (pixels, in steps of ${SCALE_FACTOR}), \`pointer_target_fixed\`. Scroll depth counts by 100-pixel bucket of how far down the viewport's bottom reached, with \`cumulative_count\` of those who got at least that far. \`viewport_width_min\`/\`_max\` pick viewport widths in pixels.`,
    scope: "heatmap:read",
    query: Query,
    response: Schema.Struct({ results: Schema.Union(Schema.Array(Point), Schema.Array(Depth)) }).annotations({
      identifier: "Heatmap"
    }),
    handler: ({ project, query }) =>
      Effect.gen(function* () {
        const now = new Date()
        const from = yield* instantOf(project, query.date_from ?? "-7d", "date_from", false, now)
        const to =
          query.date_to === undefined
            ? new Date(now.getTime() + 1)
            : yield* instantOf(project, query.date_to, "date_to", true, now)
        if (from >= to) return yield* invalid("date_from must be before date_to.", "date_from")
        if (
          query.viewport_width_min !== undefined &&
          query.viewport_width_max !== undefined &&
          query.viewport_width_min > query.viewport_width_max
        ) {
          return yield* invalid("viewport_width_min must not be above viewport_width_max.", "viewport_width_min")
        }
        const store = yield* HeatmapStore
        const range = { type: query.type ?? "click", from, to }
        let urls: ReadonlyArray<string>
        if (query.url_exact !== undefined) {
          urls = [query.url_exact]
        } else if (query.url_pattern !== undefined) {
          const pattern = compilePattern(anchored(query.url_pattern))
          if (pattern === null) return yield* invalid("Not a valid regular expression.", "url_pattern")
          urls = (yield* limited(store.urls(project.id, range, MAX_URLS))).filter(
            (url) => searchPattern(pattern, url) === true
          )
        } else {
          return yield* invalid("Name the page with url_exact or url_pattern.", "url_exact")
        }
        const selection = {
          ...range,
          urls,
          viewportWidthMin:
            query.viewport_width_min === undefined ? undefined : Math.round(query.viewport_width_min / SCALE_FACTOR),
          viewportWidthMax:
            query.viewport_width_max === undefined ? undefined : Math.round(query.viewport_width_max / SCALE_FACTOR),
          aggregation: query.aggregation ?? "total_count",
          limit: MAX_RESULTS
        }
        const headers = { "cache-control": "max-age=30" }
        if (range.type !== "scrolldepth")
          return Reply.json(200, { results: yield* limited(store.points(project.id, selection)) }, headers)
        const depths = yield* limited(store.depths(project.id, selection))
        // Everyone who got further down also passed this depth.
        let below = 0
        const results = [...depths]
          .reverse()
          .map((d) => ({ scroll_depth_bucket: d.bucket, bucket_count: d.count, cumulative_count: (below += d.count) }))
          .reverse()
        return Reply.json(200, { results }, headers)
      })
  })
]

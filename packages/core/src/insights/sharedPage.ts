// The public pages of a shared insight and of a shared dashboard: names, descriptions and results,
// drawn without scripts — series as a small inline SVG line chart (one line per series, with each
// series' total in the legend), funnel steps and retention cohorts as tables of persons, ZedQL rows
// as a table.

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const WIDTH = 640
const HEIGHT = 240
const COLORS = ["#1d4aff", "#f04f58", "#42827e", "#f7a501", "#8567ff"]

interface Series {
  readonly label: string
  readonly data: ReadonlyArray<number>
  /** What the legend says of the series: its total, or for a rate its latest value. */
  readonly summary: string
}

type SeriesLike = {
  label?: unknown
  data: Array<unknown>
  count?: unknown
  aggregated_value?: unknown
  breakdown_value?: unknown
}

const nameOf = (s: SeriesLike, i: number) =>
  typeof s.label === "string"
    ? s.label
    : s.breakdown_value !== undefined
      ? String(s.breakdown_value)
      : `Series ${i + 1}`

/** A funnel's conversion over time: a percentage per interval, with no label (and `count` is the
 * number of intervals, not a total). */
const isRate = (s: SeriesLike) => s.label === undefined && s.aggregated_value === undefined

/** Trends-like results: a list of series, each with numeric `data`. */
const seriesOf = (result: unknown): ReadonlyArray<Series> | undefined => {
  if (!Array.isArray(result) || result.length === 0) return undefined
  const series = result.filter(
    (s): s is SeriesLike => typeof s === "object" && s !== null && Array.isArray((s as { data?: unknown }).data)
  )
  if (series.length !== result.length) return undefined
  return series.map((s, i) => {
    const data = s.data.map(Number)
    const summary = isRate(s)
      ? `${data.at(-1) ?? 0}% in the last interval`
      : // Displays of one value per series (tables, pies) have it as aggregated_value, and no data.
        String(
          typeof s.aggregated_value === "number"
            ? s.aggregated_value
            : typeof s.count === "number"
              ? s.count
              : data.reduce((a, b) => a + b, 0)
        )
    return { label: isRate(s) && s.breakdown_value === undefined ? "Conversion rate" : nameOf(s, i), data, summary }
  })
}

const chart = (series: ReadonlyArray<Series>) => {
  const max = Math.max(1, ...series.flatMap((s) => s.data.filter(Number.isFinite)))
  const lines = series.map((s, i) => {
    const step = s.data.length > 1 ? WIDTH / (s.data.length - 1) : 0
    const points = s.data.map(
      (v, j) => `${(j * step).toFixed(1)},${(HEIGHT - ((Number.isFinite(v) ? v : 0) / max) * HEIGHT).toFixed(1)}`
    )
    return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2" points="${points.join(" ")}"><title>${escape(s.label)}</title></polyline>`
  })
  const legend = series
    // The colour on a swatch only: coloured text would not be readable in every colour.
    .map(
      (s, i) =>
        `<li><span style="color:${COLORS[i % COLORS.length]}" aria-hidden="true">■</span> ${escape(s.label)}: <b>${escape(s.summary)}</b></li>`
    )
    .join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escape(`Chart of ${series.map((s) => s.label).join(", ")}`)}">${lines.join("")}</svg><ul>${legend}</ul>`
}

const cell = (value: unknown) => escape(typeof value === "string" ? value : (JSON.stringify(value) ?? ""))

const table = (columns: ReadonlyArray<string> | null, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  `<table>${columns === null ? "" : `<tr>${columns.map((c) => `<th>${cell(c)}</th>`).join("")}</tr>`}` +
  `${rows.map((row) => `<tr>${row.map((v) => `<td>${cell(v)}</td>`).join("")}</tr>`).join("")}</table>`

const objects = (result: unknown, key: string): ReadonlyArray<Record<string, unknown>> | undefined =>
  Array.isArray(result) &&
  result.length > 0 &&
  result.every((r) => typeof r === "object" && r !== null && !Array.isArray(r) && key in r)
    ? result
    : undefined

/** Funnel steps (a list of them per breakdown value, or one list): persons per step. */
const funnelTable = (result: unknown) => {
  const groups = Array.isArray(result) && result.every(Array.isArray) ? result : [result]
  const lists = groups.map((g) => objects(g, "order"))
  if (lists.some((l) => l === undefined || !l.every((step) => typeof step["count"] === "number"))) return undefined
  return lists
    .map((steps) =>
      table(
        ["Step", "Persons"],
        steps!.map((step) => [String(step["custom_name"] ?? step["name"] ?? ""), step["count"]])
      )
    )
    .join("")
}

/** Retention cohorts: the cohort's date, then persons per period. */
const retentionTable = (result: unknown) => {
  const rows = objects(result, "values")
  if (rows === undefined) return undefined
  return table(
    null,
    rows.map((r) => [
      String(r["date"] ?? r["label"] ?? "").slice(0, 10),
      ...(r["values"] as ReadonlyArray<{ count?: unknown }>).map((v) => v.count)
    ])
  )
}

export interface SharedInsight {
  readonly name: string | null
  readonly derived_name: string | null
  readonly description: string
  readonly result: unknown
  readonly columns: ReadonlyArray<string> | null
}

/** The result drawn as the first of the forms above that fits it. */
const resultBody = (insight: SharedInsight) => {
  const series = seriesOf(insight.result)
  if (series !== undefined) return chart(series)
  const rows =
    Array.isArray(insight.result) && insight.result.length > 0 && insight.result.every(Array.isArray)
      ? (insight.result as ReadonlyArray<ReadonlyArray<unknown>>)
      : undefined
  const steps = funnelTable(insight.result)
  if (steps !== undefined) return steps
  if (rows !== undefined) return table(insight.columns, rows)
  return retentionTable(insight.result) ?? "<p>No result has been computed for this insight yet.</p>"
}

const titleOf = (insight: SharedInsight) => escape(insight.name ?? insight.derived_name ?? "Insight")
const described = (description: string) => (description === "" ? "" : `<p>${escape(description)}</p>`)

const document = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif"><main>${body}</main></body></html>`

export const sharedInsightPage = (insight: SharedInsight) => {
  const title = titleOf(insight)
  return document(title, `<h1>${title}</h1>${described(insight.description)}${resultBody(insight)}`)
}

export interface SharedDashboard {
  readonly name: string
  readonly description: string
  readonly tiles: ReadonlyArray<{
    readonly insight: SharedInsight | null
    readonly text: { readonly body: string } | null
  }>
}

/** Every tile in turn: an insight's name and result, or a text card's text. */
export const sharedDashboardPage = (dashboard: SharedDashboard) => {
  const title = escape(dashboard.name || "Dashboard")
  const tiles = dashboard.tiles.map(({ insight, text }) =>
    insight === null
      ? `<section><p style="white-space:pre-wrap">${escape(text?.body ?? "")}</p></section>`
      : `<section><h2>${titleOf(insight)}</h2>${described(insight.description)}${resultBody(insight)}</section>`
  )
  return document(title, `<h1>${title}</h1>${described(dashboard.description)}${tiles.join("")}`)
}

export const notFoundPage =
  '<!doctype html><html><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1></body></html>'

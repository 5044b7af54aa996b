// The public page of a shared insight: its name, description and result, drawn as a small inline
// SVG line chart (one line per series) or, for ZedQL rows, a table.

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

const WIDTH = 640
const HEIGHT = 240
const COLORS = ["#1d4aff", "#f04f58", "#42827e", "#f7a501", "#8567ff"]

interface Series {
  readonly label: string
  readonly data: ReadonlyArray<number>
}

/** Trends-like results: a list of series, each with numeric `data`. */
const seriesOf = (result: unknown): ReadonlyArray<Series> | undefined => {
  if (!Array.isArray(result) || result.length === 0) return undefined
  const series = result.filter(
    (s): s is { label?: unknown; data: Array<unknown> } =>
      typeof s === "object" && s !== null && Array.isArray((s as { data?: unknown }).data)
  )
  if (series.length !== result.length) return undefined
  return series.map((s, i) => ({
    label: typeof s.label === "string" ? s.label : `Series ${i + 1}`,
    data: s.data.map(Number)
  }))
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
  const legend = series.map((s, i) => `<li style="color:${COLORS[i % COLORS.length]}">${escape(s.label)}</li>`).join("")
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img">${lines.join("")}</svg><ul>${legend}</ul>`
}

const cell = (value: unknown) => escape(typeof value === "string" ? value : (JSON.stringify(value) ?? ""))

const table = (columns: ReadonlyArray<string> | null, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  `<table>${columns === null ? "" : `<tr>${columns.map((c) => `<th>${cell(c)}</th>`).join("")}</tr>`}` +
  `${rows.map((row) => `<tr>${row.map((v) => `<td>${cell(v)}</td>`).join("")}</tr>`).join("")}</table>`

export interface SharedInsight {
  readonly name: string | null
  readonly derived_name: string | null
  readonly description: string
  readonly result: unknown
  readonly columns: ReadonlyArray<string> | null
}

export const sharedInsightPage = (insight: SharedInsight) => {
  const title = escape(insight.name ?? insight.derived_name ?? "Insight")
  const series = seriesOf(insight.result)
  const rows =
    Array.isArray(insight.result) && insight.result.every(Array.isArray)
      ? (insight.result as ReadonlyArray<ReadonlyArray<unknown>>)
      : undefined
  const body =
    series !== undefined
      ? chart(series)
      : rows !== undefined
        ? table(insight.columns, rows)
        : "<p>No result has been computed for this insight yet.</p>"
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family:sans-serif"><h1>${title}</h1>${insight.description === "" ? "" : `<p>${escape(insight.description)}</p>`}${body}</body></html>`
  )
}

export const notFoundPage =
  '<!doctype html><html><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Not found</h1></body></html>'

import { useEffect, useRef } from "react"
import uPlot from "uplot"
import type { ResultData } from "./ResultTable.js"
import "uplot/dist/uPlot.min.css"

const NUMERIC = /^(U?Int|Float|Decimal)/
const TIME = /^(DateTime|Date)/

export type ChartKind = "line" | "bar"

/** Line over time when the first column is a date; bars by category when it is text; none without a number. */
export const chartKind = (types: ReadonlyArray<string>): ChartKind | undefined => {
  if (types.length < 2 || !types.slice(1).some((type) => NUMERIC.test(type))) return undefined
  if (TIME.test(types[0]!)) return "line"
  return NUMERIC.test(types[0]!) ? "line" : "bar"
}

const COLORS = ["#1d4aff", "#f54e00", "#29a36a", "#a15dd8", "#d6a400"]

export const Chart = ({ columns, types, rows }: ResultData) => {
  const host = useRef<HTMLDivElement>(null)
  const kind = chartKind(types)
  useEffect(() => {
    if (kind === undefined || host.current === null) return
    const series = types.flatMap((type, i) => (i > 0 && NUMERIC.test(type) ? [i] : []))
    const x =
      kind === "bar"
        ? rows.map((_, i) => i)
        : rows.map((row) => (TIME.test(types[0]!) ? Date.parse(String(row[0])) / 1000 : Number(row[0])))
    const data: uPlot.AlignedData = [x, ...series.map((i) => rows.map((row) => Number(row[i])))]
    const labels = rows.map((row) => String(row[0]))
    const plot = new uPlot(
      {
        width: host.current.clientWidth || 800,
        height: 280,
        scales: { x: { time: kind === "line" && TIME.test(types[0]!) } },
        axes: [kind === "bar" ? { values: (_u, ticks) => ticks.map((t) => labels[t] ?? "") } : {}, {}],
        series: [
          { label: columns[0] },
          ...series.map((i, n) => ({
            label: columns[i],
            stroke: COLORS[n % COLORS.length],
            fill: kind === "bar" ? COLORS[n % COLORS.length] : undefined,
            paths: kind === "bar" ? uPlot.paths.bars!({ size: [0.6, 64] }) : undefined
          }))
        ]
      },
      data,
      host.current
    )
    const resize = () => plot.setSize({ width: host.current?.clientWidth ?? 800, height: 280 })
    addEventListener("resize", resize)
    return () => {
      removeEventListener("resize", resize)
      plot.destroy()
    }
  }, [kind, columns, types, rows])
  if (kind === undefined) return <p className="muted">No chart: the result needs a numeric column beside its first.</p>
  return <div ref={host} className="chart" role="img" aria-label={`${kind} chart of ${columns.slice(1).join(", ")}`} />
}

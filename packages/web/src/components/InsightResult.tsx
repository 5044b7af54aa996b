import { useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useMemo, useState } from "react"
import { api, type Insight, type Paginated } from "../api.js"
import { ListHead } from "./ListHead.js"
import { type InsightPoint, InsightPersons } from "./InsightPersons.js"
import { PieChart } from "./PieChart.js"
import { ResultTable } from "./ResultTable.js"
import { type Annotation, type ChartKind, type Series, SeriesChart } from "./SeriesChart.js"
import { WorldMap } from "./WorldMap.js"

// An insight's computed result drawn as its kind and display ask: trends, stickiness and lifecycle
// as charts over their labels (or one number / a table of totals / a world map), funnels as steps,
// retention as a cohort heat map, ZedQL as a table; an insight that could not be computed (a
// dashboard tile) as its error.

export interface TrendEntry {
  readonly label: string
  readonly data: ReadonlyArray<number>
  readonly labels: ReadonlyArray<string>
  readonly count: number
  readonly aggregated_value?: number
  readonly compare_label?: string
  readonly days?: ReadonlyArray<string | number>
  readonly breakdown_value?: unknown
  readonly status?: string
  readonly action?: { readonly order?: number } | null
}

interface FunnelStep {
  readonly name: string
  readonly custom_name?: string | null
  readonly order: number
  readonly count: number
  readonly median_conversion_time?: number | null
  readonly breakdown_value?: unknown
}

interface RetentionRow {
  readonly date: string
  readonly label: string
  readonly values: ReadonlyArray<{ readonly count: number }>
}

const number = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 4 })
const percent = (part: number, whole: number) => (whole === 0 ? "0%" : `${((100 * part) / whole).toFixed(1)}%`)

/** Trend displays giving one aggregated value per series over the whole range. */
const AGGREGATED = new Set(["ActionsTable", "ActionsPie", "ActionsBarValue"])

/** The time-series displays other than lines. */
const CHART_KINDS: Record<string, ChartKind> = {
  ActionsAreaGraph: "area",
  ActionsBar: "bar",
  ActionsStackedBar: "stacked bar"
}

const entryLabel = (entry: TrendEntry) =>
  entry.compare_label ? `${entry.label} (${entry.compare_label})` : entry.label

/** Where a click on entry `entry`'s value at `at` leads: its persons, unless it is a formula's or a
 * compared period's, which the actors query cannot name. */
const trendPoint = (entry: TrendEntry, at: number): InsightPoint | undefined => {
  const day = entry.days?.[at]
  if (day === undefined || entry.compare_label !== undefined || (entry.action == null && entry.status === undefined))
    return undefined
  return {
    title: `${entryLabel(entry)}, ${entry.labels[at] ?? day}`,
    fields: {
      day,
      ...(entry.status !== undefined
        ? { status: entry.status }
        : {
            series: entry.action?.order ?? 0,
            ...(entry.breakdown_value !== undefined ? { breakdown: entry.breakdown_value } : {})
          })
    }
  }
}

/** The project's annotations within `days` (a time series' buckets, as `YYYY-MM-DD…` texts), each at
 * the last bucket starting at or before it. */
const useAnnotations = (days: ReadonlyArray<string | number>) => {
  const { id } = useParams({ from: "/project/$id" })
  const notes = useQuery({
    queryKey: ["annotations", id],
    queryFn: () =>
      api<Paginated<{ content: string; date_marker: string | null }>>(`/api/projects/${id}/annotations/?limit=1000`),
    staleTime: 60_000
  })
  return useMemo<ReadonlyArray<Annotation>>(() => {
    const buckets = days.map(String)
    if (buckets.length === 0 || typeof days[0] === "number") return []
    return (notes.data?.results ?? []).flatMap((note) => {
      const marker = note.date_marker
      if (marker === null) return []
      const at = buckets.findLastIndex((day) => day <= marker.slice(0, day.length))
      const end = buckets.at(-1)!
      return at < 0 || marker.slice(0, end.length) > end ? [] : [{ at, text: note.content }]
    })
  }, [days, notes.data])
}

export const Trends = ({
  entries,
  display,
  title,
  onPick
}: {
  readonly entries: ReadonlyArray<TrendEntry>
  readonly display: string
  readonly title: string
  /** Where a click on a point leads (its persons); without it, points are not clickable. */
  readonly onPick?: (point: InsightPoint) => void
}) => {
  const annotations = useAnnotations(entries[0]?.days ?? [])
  const series = useMemo<ReadonlyArray<Series>>(
    () => entries.map((entry) => ({ label: entryLabel(entry), data: entry.data, total: entry.count })),
    [entries]
  )
  if (display === "BoldNumber")
    return (
      <div className="bold-numbers">
        {entries.map((entry, i) => (
          <p key={i} className="bold-number">
            <span className="value">{number(entry.aggregated_value ?? entry.count)}</span>
            <span className="muted">{entryLabel(entry)}</span>
          </p>
        ))}
      </div>
    )
  if (display === "ActionsPie")
    return (
      <PieChart
        entries={entries.map((entry) => ({ label: entryLabel(entry), value: entry.aggregated_value ?? entry.count }))}
        title={title}
      />
    )
  if (display === "WorldMap") return <WorldMap entries={entries} title={title} />
  if (AGGREGATED.has(display))
    return (
      <table className="list" aria-label="Result">
        <ListHead columns={["Series", "Value"]} />
        <tbody>
          {entries.map((entry, i) => (
            <tr key={i}>
              <th scope="row">{entryLabel(entry)}</th>
              <td className="number">{number(entry.aggregated_value ?? entry.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    )
  if (entries.length === 0) return <p className="muted">No data in this range.</p>
  const kind = CHART_KINDS[display] ?? "line"
  return (
    <SeriesChart
      labels={entries[0]!.labels}
      series={series}
      kind={kind}
      title={title}
      annotations={annotations}
      onPick={
        onPick &&
        ((i, at) => {
          const point = trendPoint(entries[i]!, at)
          if (point) onPick(point)
        })
      }
    />
  )
}

const FunnelSteps = ({
  steps,
  title,
  onPick
}: {
  readonly steps: ReadonlyArray<FunnelStep>
  readonly title: string
  readonly onPick: (point: InsightPoint) => void
}) => {
  /** The persons who reached step `i` (from 0), or who reached the one before and dropped off. */
  const pick = (i: number, converted: boolean) => {
    const step = steps[i]!
    const name = step.custom_name || step.name
    onPick({
      title: converted ? `reached step ${i + 1} (${name})` : `dropped off before step ${i + 1} (${name})`,
      fields: {
        funnelStep: converted ? i + 1 : -(i + 1),
        ...(step.breakdown_value !== undefined ? { funnelStepBreakdown: step.breakdown_value } : {})
      }
    })
  }
  const first = steps[0]?.count ?? 0
  return (
    <table className="list funnel" aria-label={title}>
      <ListHead columns={["Step", "Persons", "Conversion", "Dropped off", "Median time"]} />
      <tbody>
        {steps.map((step, i) => {
          const previous = i === 0 ? step.count : steps[i - 1]!.count
          return (
            <tr key={step.order}>
              <th scope="row">
                {i + 1}. {step.custom_name || step.name}
                <div className="funnel-bar" aria-hidden="true">
                  <span style={{ width: percent(step.count, first) }} />
                </div>
              </th>
              <td className="number">
                <button
                  type="button"
                  className="link"
                  aria-label={`${number(step.count)}: persons who reached step ${i + 1}`}
                  onClick={() => pick(i, true)}
                >
                  {number(step.count)}
                </button>
              </td>
              <td className="number">{percent(step.count, first)}</td>
              <td className="number">
                {i === 0 ? (
                  "—"
                ) : (
                  <>
                    <button
                      type="button"
                      className="link"
                      aria-label={`${number(previous - step.count)}: persons who dropped off before step ${i + 1}`}
                      onClick={() => pick(i, false)}
                    >
                      {number(previous - step.count)}
                    </button>{" "}
                    ({percent(previous - step.count, previous)})
                  </>
                )}
              </td>
              <td className="number">
                {step.median_conversion_time == null ? "—" : `${number(step.median_conversion_time)} s`}
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

/** A duration in seconds as its largest whole units ("1 h 5 min", "42 s"). */
const duration = (seconds: number) => {
  const parts = [
    [86_400, "d"],
    [3600, "h"],
    [60, "min"],
    [1, "s"]
  ] as const
  const shown = parts.flatMap(([size, unit]) => {
    const amount = Math.floor(seconds / size)
    seconds -= amount * size
    return amount > 0 ? [`${amount} ${unit}`] : []
  })
  return shown.slice(0, 2).join(" ") || "0 s"
}

/** Time to convert: persons per bin of conversion time, each bin named by where it starts. */
const TimeToConvert = ({
  bins,
  title
}: {
  readonly bins: ReadonlyArray<readonly [number, number]>
  readonly title: string
}) => {
  const labels = useMemo(() => bins.map(([start]) => duration(start)), [bins])
  const series = useMemo(() => [{ label: "Persons", data: bins.map(([, persons]) => persons) }], [bins])
  return <SeriesChart labels={labels} series={series} kind="bar" title={title} />
}

/** Conversion over time: the conversion rate (percent) by interval of entering, a line per breakdown value. */
const FunnelTrends = ({
  entries,
  title
}: {
  readonly entries: ReadonlyArray<{
    readonly data: ReadonlyArray<number>
    readonly labels: ReadonlyArray<string>
    readonly breakdown_value?: unknown
  }>
  readonly title: string
}) => {
  const series = useMemo(
    () =>
      entries.map((entry) => ({
        label: entry.breakdown_value === undefined ? "Conversion rate (%)" : String(entry.breakdown_value),
        data: entry.data
      })),
    [entries]
  )
  if (entries.length === 0) return <p className="muted">No data in this range.</p>
  return <SeriesChart labels={entries[0]!.labels} series={series} kind="line" title={title} />
}

const Funnel = ({
  result,
  viz,
  title,
  onPick
}: {
  readonly result: unknown
  readonly viz: unknown
  readonly title: string
  readonly onPick: (point: InsightPoint) => void
}) => {
  if (viz === "trends") return <FunnelTrends entries={result as ReadonlyArray<TrendEntry>} title={title} />
  if (!Array.isArray(result)) {
    const { bins } = result as { readonly bins: ReadonlyArray<readonly [number, number]> }
    return <TimeToConvert bins={bins} title={title} />
  }
  // With a breakdown, one list of steps per breakdown value.
  const groups: ReadonlyArray<ReadonlyArray<FunnelStep>> = Array.isArray(result[0]) ? result : [result]
  return groups.map((steps, i) => {
    const value = steps[0]?.breakdown_value
    const title = value === undefined ? "Funnel steps" : `Funnel steps: ${String(value)}`
    return (
      <section key={i} aria-label={title}>
        {value !== undefined && <h3>{String(value)}</h3>}
        <FunnelSteps steps={steps} title={title} onPick={onPick} />
      </section>
    )
  })
}

const Retention = ({ rows, period }: { readonly rows: ReadonlyArray<RetentionRow>; readonly period: string }) => {
  const width = Math.max(0, ...rows.map((row) => row.values.length))
  return (
    <table className="list retention" aria-label="Retention cohorts">
      <ListHead columns={["Cohort", "Persons", ...Array.from({ length: width }, (_, j) => `${period} ${j}`)]} />
      <tbody>
        {rows.map((row) => {
          const size = row.values[0]?.count ?? 0
          return (
            <tr key={row.date}>
              <th scope="row">{row.date.slice(0, 10)}</th>
              <td className="number">{number(size)}</td>
              {Array.from({ length: width }, (_, j) => {
                const cell = row.values[j]
                if (cell === undefined) return <td key={j} />
                const share = size === 0 ? 0 : cell.count / size
                return (
                  <td
                    key={j}
                    className={`number heat${share > 0.5 ? " strong" : ""}`}
                    style={{ "--share": share } as React.CSSProperties}
                    title={`${number(cell.count)} of ${number(size)}`}
                  >
                    {percent(cell.count, size)}
                    <span className="heat-count">{number(cell.count)}</span>
                  </td>
                )
              })}
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}

/** The share of persons still there `j` periods after their cohort's start, over every cohort that
 * has had `j` periods yet (persons weighted alike, not cohorts). */
const retentionCurve = (rows: ReadonlyArray<RetentionRow>) => {
  const width = Math.max(0, ...rows.map((row) => row.values.length))
  return Array.from({ length: width }, (_, j) => {
    const counted = rows.filter((row) => row.values.length > j)
    const size = counted.reduce((sum, row) => sum + (row.values[0]?.count ?? 0), 0)
    const retained = counted.reduce((sum, row) => sum + row.values[j]!.count, 0)
    return size === 0 ? 0 : Math.round((1000 * retained) / size) / 10
  })
}

const RetentionCurve = ({ rows, period }: { readonly rows: ReadonlyArray<RetentionRow>; readonly period: string }) => {
  const data = useMemo(() => retentionCurve(rows), [rows])
  const labels = useMemo(() => data.map((_, j) => `${period} ${j}`), [data, period])
  const series = useMemo(() => [{ label: "Retained %", data }], [data])
  return <SeriesChart labels={labels} series={series} kind="line" title="Retention curve" />
}

type Computed = Insight & { readonly columns?: ReadonlyArray<string>; readonly types?: ReadonlyArray<unknown> }

/** The result of `insight` as its kind draws it, and the persons behind the point last clicked. */
export const InsightResult = ({ insight }: { readonly insight: Computed }) => {
  const [point, setPoint] = useState<InsightPoint>()
  const source = insight.query?.source
  return (
    <>
      <KindResult insight={insight} onPick={setPoint} />
      {point && source && <InsightPersons source={source} point={point} onClose={() => setPoint(undefined)} />}
    </>
  )
}

/** The result as its kind draws it; nothing computed yet says so. */
const KindResult = ({
  insight,
  onPick
}: {
  readonly insight: Computed
  readonly onPick: (point: InsightPoint) => void
}) => {
  const source = insight.query?.source
  const result = insight.result
  if (insight.error)
    return (
      <p role="alert" className="error">
        Could not compute: {insight.error.detail}
      </p>
    )
  if (result === null || result === undefined) return <p className="muted">Not computed yet.</p>
  const title = insight.name || insight.derived_name || "Insight"
  switch (source?.kind) {
    case "TrendsQuery":
    case "StickinessQuery":
    case "LifecycleQuery": {
      const display = (source["trendsFilter"] as { display?: string } | undefined)?.display ?? ""
      return (
        <Trends
          entries={result as ReadonlyArray<TrendEntry>}
          display={source.kind === "LifecycleQuery" ? "ActionsStackedBar" : display}
          title={title}
          onPick={onPick}
        />
      )
    }
    case "FunnelsQuery":
      return (
        <Funnel
          result={result}
          viz={(source["funnelsFilter"] as { funnelVizType?: string } | undefined)?.funnelVizType}
          title={title}
          onPick={onPick}
        />
      )
    case "RetentionQuery": {
      const period = (source["retentionFilter"] as { period?: string } | undefined)?.period ?? "Day"
      const rows = result as ReadonlyArray<RetentionRow>
      return (
        <>
          <Retention rows={rows} period={period} />
          <RetentionCurve rows={rows} period={period} />
        </>
      )
    }
    default:
      return (
        <ResultTable
          columns={insight.columns ?? []}
          types={(insight.types ?? []).map((type) => (Array.isArray(type) ? String(type[1]) : String(type)))}
          rows={result as ReadonlyArray<ReadonlyArray<unknown>>}
        />
      )
  }
}

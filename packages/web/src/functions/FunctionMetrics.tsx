import { useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { api } from "../api.js"
import { Choice } from "../components/Field.js"
import { ErrorAlert } from "../components/Page.js"
import { type Series, SeriesChart } from "../components/SeriesChart.js"

// A function's invocations over time, from its metrics endpoint: each interval's successes and
// failures, and their sum.

interface Metrics {
  readonly labels: ReadonlyArray<string>
  readonly series: ReadonlyArray<{ readonly name: string; readonly values: ReadonlyArray<number> }>
}

/** Ranges offered, each with the interval that suits it. */
const RANGES = {
  "-24h": { label: "Last 24 hours", interval: "hour" },
  "-7d": { label: "Last 7 days", interval: "day" },
  "-30d": { label: "Last 30 days", interval: "day" },
  "-180d": { label: "Last 6 months", interval: "week" }
} as const
type Range = keyof typeof RANGES

const sum = (values: ReadonlyArray<number>) => values.reduce((total, value) => total + value, 0)

const seriesOf = (metrics: Metrics): ReadonlyArray<Series> => {
  const values = (name: string) =>
    metrics.series.find((entry) => entry.name === name)?.values ?? metrics.labels.map(() => 0)
  const [succeeded, failed] = [values("succeeded"), values("failed")]
  const invocations = metrics.labels.map((_, i) => (succeeded[i] ?? 0) + (failed[i] ?? 0))
  return [
    { label: "Invocations", data: invocations, total: sum(invocations) },
    { label: "Succeeded", data: succeeded, total: sum(succeeded) },
    { label: "Failed", data: failed, total: sum(failed) }
  ]
}

export const FunctionMetrics = ({ path }: { readonly path: string }) => {
  const [range, setRange] = useState<Range>("-7d")
  const metrics = useQuery({
    queryKey: ["function-metrics", path, range],
    queryFn: () => api<Metrics>(`${path}metrics/?after=${range}&interval=${RANGES[range].interval}&breakdown_by=name`),
    placeholderData: (previous) => previous
  })
  return (
    <>
      <h2>Metrics</h2>
      <div className="toolbar">
        <Choice
          label="Metrics range"
          value={range}
          options={
            Object.fromEntries(Object.entries(RANGES).map(([key, { label }]) => [key, label])) as Record<Range, string>
          }
          onChange={setRange}
        />
        <button type="button" onClick={() => void metrics.refetch()} disabled={metrics.isFetching}>
          Refresh metrics
        </button>
      </div>
      <ErrorAlert error={metrics.error} />
      {metrics.data && (
        <SeriesChart labels={metrics.data.labels} series={seriesOf(metrics.data)} kind="line" title="Invocations" />
      )}
    </>
  )
}

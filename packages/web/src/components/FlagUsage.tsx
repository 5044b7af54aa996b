import { useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { api } from "../api.js"
import { type DateFrom, DateRangeChoice } from "./DateRangeChoice.js"
import { type TrendEntry, Trends } from "./InsightResult.js"
import { ErrorAlert } from "./Page.js"

/** The trend of a flag's `$feature_flag_called` events, one series per answer the SDKs got. */
export const usageQuery = (flagKey: string, dateFrom: string) => ({
  kind: "TrendsQuery",
  series: [{ kind: "EventsNode", event: "$feature_flag_called", math: "total" }],
  properties: [{ key: "$feature_flag", value: flagKey, operator: "exact", type: "event" }],
  breakdownFilter: { breakdown: "$feature_flag_response", breakdown_type: "event" },
  dateRange: { date_from: dateFrom },
  interval: "day"
})

/** A flag's evaluations over time by variant, from the query API. */
export const FlagUsage = ({ id, flagKey }: { readonly id: string; readonly flagKey: string }) => {
  const [dateFrom, setDateFrom] = useState<DateFrom>("-7d")
  // The cached result when fresh; Refresh computes it again.
  const [forced, setForced] = useState(0)
  const usage = useQuery({
    queryKey: ["flag-usage", id, flagKey, dateFrom, forced],
    queryFn: () =>
      api<{ readonly results: ReadonlyArray<TrendEntry> }>(`/api/projects/${id}/query/`, {
        method: "POST",
        body: { query: usageQuery(flagKey, dateFrom), refresh: forced > 0 ? "force_blocking" : "blocking" }
      }),
    placeholderData: (previous) => previous
  })
  return (
    <section className="card" aria-labelledby="flag-usage">
      <h2 id="flag-usage">Usage</h2>
      <p className="muted">Evaluations reported by the SDKs ($feature_flag_called), by the value they got.</p>
      <div className="toolbar">
        <DateRangeChoice value={dateFrom} onChange={setDateFrom} />
        <button type="button" onClick={() => setForced(forced + 1)} disabled={usage.isFetching}>
          Refresh
        </button>
      </div>
      <ErrorAlert error={usage.error} />
      {usage.data && <Trends entries={usage.data.results} display="ActionsBar" title={`Usage of ${flagKey}`} />}
    </section>
  )
}

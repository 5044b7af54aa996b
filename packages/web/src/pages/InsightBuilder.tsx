import { useMutation, useQuery } from "@tanstack/react-query"
import { useNavigate, useParams } from "@tanstack/react-router"
import { useEffect, useMemo, useRef, useState } from "react"
import { api, type Insight, type InsightQuery } from "../api.js"
import { Choice, Field } from "../components/Field.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"

// Builds a trends query node, the one the insights API stores. The API computes only stored
// insights, so the live result comes from a draft (`saved: false`, left out of the list) updated
// as the query changes; saving names it and marks it saved.

const MATHS = {
  total: "Total count",
  dau: "Unique users",
  sum: "Property sum",
  avg: "Property average"
} as const
type Math = keyof typeof MATHS

const DATE_RANGES = {
  "-24h": "Last 24 hours",
  "-7d": "Last 7 days",
  "-14d": "Last 14 days",
  "-30d": "Last 30 days",
  "-90d": "Last 90 days",
  mStart: "This month",
  yStart: "Year to date"
} as const

const INTERVALS = { hour: "Hour", day: "Day", week: "Week", month: "Month" } as const

const DISPLAYS = {
  ActionsLineGraph: "Line",
  ActionsBar: "Bar",
  BoldNumber: "Number",
  ActionsTable: "Table"
} as const

interface SeriesDraft {
  readonly event: string
  readonly math: Math
  readonly property: string
}

interface TrendsDraft {
  readonly series: ReadonlyArray<SeriesDraft>
  readonly breakdown: string
  readonly interval: keyof typeof INTERVALS
  readonly dateFrom: keyof typeof DATE_RANGES
  readonly display: keyof typeof DISPLAYS
}

const INITIAL: TrendsDraft = {
  series: [{ event: "$pageview", math: "total", property: "" }],
  breakdown: "",
  interval: "day",
  dateFrom: "-7d",
  display: "ActionsLineGraph"
}

/** The draft as PostHog's `InsightVizNode` around a `TrendsQuery`. */
export const trendsQuery = (draft: TrendsDraft): InsightQuery => ({
  kind: "InsightVizNode",
  source: {
    kind: "TrendsQuery",
    series: draft.series.map((series) => ({
      kind: "EventsNode",
      event: series.event.trim() || null,
      name: series.event.trim() || "All events",
      math: series.math,
      ...(series.math === "sum" || series.math === "avg" ? { math_property: series.property.trim() } : {})
    })),
    interval: draft.interval,
    dateRange: { date_from: draft.dateFrom },
    trendsFilter: { display: draft.display },
    ...(draft.breakdown.trim()
      ? { breakdownFilter: { breakdown_type: "event", breakdown: draft.breakdown.trim() } }
      : {})
  }
})

/** `value`, once it has stopped changing for `ms`. */
const useSettled = (value: string, ms: number) => {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** A property-math series without its property cannot be computed yet. */
const complete = (draft: TrendsDraft) =>
  draft.series.every((series) => (series.math !== "sum" && series.math !== "avg") || series.property.trim() !== "")

export const InsightBuilderPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const [draft, setDraft] = useState(INITIAL)
  const [name, setName] = useState("")
  // Compared as text: a new node object each render is the same query.
  const queryText = useSettled(JSON.stringify(trendsQuery(draft)), 300)
  const query = useMemo(() => JSON.parse(queryText) as InsightQuery, [queryText])
  // The draft insight, made on the first computation; each computation waits for the one before,
  // so that updates reach the draft in order.
  const stored = useRef<Promise<number>>(undefined)
  const previous = useRef<Promise<unknown>>(Promise.resolve())

  const result = useQuery({
    queryKey: ["insight-draft", id, queryText],
    enabled: complete(draft),
    placeholderData: (last) => last,
    queryFn: () => {
      const run = previous.current
        .catch(() => undefined)
        .then(async () => {
          if (stored.current === undefined) {
            stored.current = api<Insight>(`/api/projects/${id}/insights/`, {
              method: "POST",
              body: { query, saved: false }
            }).then((insight) => insight.id)
          } else {
            await api(`/api/projects/${id}/insights/${await stored.current}/`, {
              method: "PATCH",
              body: { query, saved: false }
            })
          }
          return api<Insight>(`/api/projects/${id}/insights/${await stored.current}/?refresh=blocking`)
        })
      previous.current = run
      return run
    }
  })

  const save = useMutation({
    mutationFn: async () => {
      await previous.current.catch(() => undefined)
      const insightId = await (stored.current ??
        api<Insight>(`/api/projects/${id}/insights/`, { method: "POST", body: { query } }).then((i) => i.id))
      return api<Insight>(`/api/projects/${id}/insights/${insightId}/`, {
        method: "PATCH",
        body: { name: name.trim(), query, saved: true }
      })
    },
    onSuccess: (insight) =>
      void navigate({ to: "/project/$id/insights/$shortId", params: { id, shortId: insight.short_id } })
  })

  const setSeries = (index: number, change: Partial<SeriesDraft>) =>
    setDraft({ ...draft, series: draft.series.map((series, i) => (i === index ? { ...series, ...change } : series)) })

  return (
    <Page title="New trend" className="page builder">
      <form
        className="stack"
        aria-label="Trend"
        onSubmit={(event) => {
          event.preventDefault()
          save.mutate()
        }}
      >
        <fieldset>
          <legend>Series</legend>
          <ol className="series-list">
            {draft.series.map((series, i) => (
              <li key={i} className="toolbar">
                <Field
                  label={`Event ${i + 1}`}
                  value={series.event}
                  onChange={(event) => setSeries(i, { event })}
                  placeholder="All events"
                />
                <Choice
                  label={`Math ${i + 1}`}
                  value={series.math}
                  options={MATHS}
                  onChange={(math) => setSeries(i, { math })}
                />
                {(series.math === "sum" || series.math === "avg") && (
                  <Field
                    label={`Property ${i + 1}`}
                    value={series.property}
                    onChange={(property) => setSeries(i, { property })}
                    placeholder="price"
                    required
                  />
                )}
                {draft.series.length > 1 && (
                  <button
                    type="button"
                    onClick={() => setDraft({ ...draft, series: draft.series.filter((_, j) => j !== i) })}
                  >
                    Remove series {i + 1}
                  </button>
                )}
              </li>
            ))}
          </ol>
          <button
            type="button"
            onClick={() =>
              setDraft({ ...draft, series: [...draft.series, { event: "", math: "total", property: "" }] })
            }
          >
            Add series
          </button>
        </fieldset>
        <div className="toolbar">
          <Field
            label="Breakdown by event property"
            value={draft.breakdown}
            onChange={(breakdown) => setDraft({ ...draft, breakdown })}
            placeholder="$browser"
          />
          <Choice
            label="Interval"
            value={draft.interval}
            options={INTERVALS}
            onChange={(interval) => setDraft({ ...draft, interval })}
          />
          <Choice
            label="Date range"
            value={draft.dateFrom}
            options={DATE_RANGES}
            onChange={(dateFrom) => setDraft({ ...draft, dateFrom })}
          />
          <Choice
            label="Display"
            value={draft.display}
            options={DISPLAYS}
            onChange={(display) => setDraft({ ...draft, display })}
          />
        </div>
        <div className="toolbar">
          <Field label="Name" value={name} onChange={setName} required />
          <button type="submit" className="primary" disabled={save.isPending}>
            Save
          </button>
        </div>
      </form>
      <ErrorAlert error={result.error ?? save.error} />
      <section aria-label="Result" aria-busy={result.isFetching}>
        {result.data && <InsightResult insight={result.data} />}
      </section>
    </Page>
  )
}

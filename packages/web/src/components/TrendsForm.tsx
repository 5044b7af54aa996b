import type { InsightQuery } from "../api.js"
import type { DraftFormProps } from "../insightDraft.js"
import { fields, list, oneOf, text, type Fields } from "../queryFields.js"
import { type DateFrom, DateRangeChoice, dateFromOf } from "./DateRangeChoice.js"
import { type BreakdownDraft, BreakdownFields, breakdownDraft } from "./BreakdownFields.js"
import { Choice, Field } from "./Field.js"
import { type Interval, IntervalChoice, intervalOf } from "./IntervalChoice.js"
import { ItemList } from "./ItemList.js"
import { type FilterDraft, filterDrafts, PropertyFilters, propertyFilters } from "./PropertyFilters.js"

// The trends part of the insight builder: its draft, the query node it makes, and its form.

const MATHS = {
  total: "Total count",
  dau: "Unique users",
  weekly_active: "Weekly active users",
  monthly_active: "Monthly active users",
  unique_session: "Unique sessions",
  avg_count_per_actor: "Per user: average",
  min_count_per_actor: "Per user: minimum",
  max_count_per_actor: "Per user: maximum",
  median_count_per_actor: "Per user: median",
  sum: "Property sum",
  avg: "Property average",
  min: "Property minimum",
  max: "Property maximum",
  median: "Property median",
  p90: "Property 90th percentile",
  p95: "Property 95th percentile",
  p99: "Property 99th percentile"
} as const
type Math = keyof typeof MATHS
const PROPERTY_MATHS: ReadonlySet<Math> = new Set(["sum", "avg", "min", "max", "median", "p90", "p95", "p99"])

const DISPLAYS = {
  ActionsLineGraph: "Line",
  ActionsLineGraphCumulative: "Cumulative line",
  ActionsAreaGraph: "Area",
  ActionsBar: "Bar",
  ActionsStackedBar: "Stacked bar",
  BoldNumber: "Number",
  ActionsTable: "Table",
  ActionsPie: "Pie",
  WorldMap: "World map"
} as const

interface SeriesDraft {
  readonly event: string
  readonly math: Math
  readonly property: string
  readonly filters: ReadonlyArray<FilterDraft>
}

const BLANK_SERIES: SeriesDraft = { event: "", math: "total", property: "", filters: [] }

export interface TrendsDraft extends BreakdownDraft {
  readonly series: ReadonlyArray<SeriesDraft>
  readonly filters: ReadonlyArray<FilterDraft>
  /** Top N values, the rest as "other" ("": the API's default). */
  readonly breakdownLimit: string
  readonly hideOther: boolean
  readonly interval: Interval
  readonly dateFrom: DateFrom
  readonly compare: boolean
  readonly formula: string
  readonly display: keyof typeof DISPLAYS
}

export const INITIAL_TRENDS: TrendsDraft = {
  series: [{ ...BLANK_SERIES, event: "$pageview" }],
  filters: [],
  breakdown: "",
  breakdownType: "event",
  breakdownLimit: "",
  hideOther: false,
  interval: "day",
  dateFrom: "-7d",
  compare: false,
  formula: "",
  display: "ActionsLineGraph"
}

/** A list of filters only when there is one. */
const withFilters = (filters: ReadonlyArray<FilterDraft>) => {
  const made = propertyFilters(filters)
  return made.length > 0 ? { properties: made } : {}
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
      ...(PROPERTY_MATHS.has(series.math) ? { math_property: series.property.trim() } : {}),
      ...withFilters(series.filters)
    })),
    interval: draft.interval,
    dateRange: { date_from: draft.dateFrom },
    ...withFilters(draft.filters),
    trendsFilter: { display: draft.display, ...(draft.formula.trim() ? { formula: draft.formula.trim() } : {}) },
    ...(draft.compare ? { compareFilter: { compare: true } } : {}),
    ...(draft.breakdown.trim()
      ? {
          breakdownFilter: {
            breakdown_type: draft.breakdownType,
            breakdown: draft.breakdown.trim(),
            ...(draft.breakdownLimit ? { breakdown_limit: Number(draft.breakdownLimit) } : {}),
            ...(draft.hideOther ? { breakdown_hide_other_aggregation: true } : {})
          }
        }
      : {})
  }
})

/** A stored `TrendsQuery` as the trends builder edits it. */
export const trendsDraft = (source: Fields): TrendsDraft => {
  const breakdown = fields(source["breakdownFilter"])
  const trends = fields(source["trendsFilter"])
  return {
    series: list(source["series"]).map((node) => {
      const series = fields(node)
      return {
        event: text(series["event"]),
        math: oneOf(series["math"], MATHS, "total"),
        property: text(series["math_property"]),
        filters: filterDrafts(series["properties"])
      }
    }),
    filters: filterDrafts(source["properties"]),
    ...breakdownDraft(source),
    breakdownLimit: text(breakdown["breakdown_limit"]),
    hideOther: breakdown["breakdown_hide_other_aggregation"] === true,
    interval: intervalOf(source["interval"]),
    dateFrom: dateFromOf(source["dateRange"]),
    compare: fields(source["compareFilter"])["compare"] === true,
    formula: text(trends["formula"]),
    display: oneOf(trends["display"], DISPLAYS, "ActionsLineGraph")
  }
}

/** A property-math series without its property, or a bad top N, cannot be computed yet. */
export const trendsComplete = (draft: TrendsDraft) =>
  draft.series.every((series) => !PROPERTY_MATHS.has(series.math) || series.property.trim() !== "") &&
  /^([1-9]\d*)?$/.test(draft.breakdownLimit)

/** The trend's series, filters, breakdown, interval, date range, comparison, formula and display. */
export const TrendsForm = ({ draft, onChange }: DraftFormProps<TrendsDraft>) => (
  <>
    <ItemList
      legend="Series"
      noun="series"
      items={draft.series}
      min={1}
      blank={BLANK_SERIES}
      onChange={(series) => onChange({ ...draft, series })}
    >
      {(series, i, set) => (
        <>
          <Field
            label={`Event ${i + 1}`}
            value={series.event}
            onChange={(event) => set({ ...series, event })}
            placeholder="All events"
          />
          <Choice
            label={`Math ${i + 1}`}
            value={series.math}
            options={MATHS}
            onChange={(math) => set({ ...series, math })}
          />
          {PROPERTY_MATHS.has(series.math) && (
            <Field
              label={`Property ${i + 1}`}
              value={series.property}
              onChange={(property) => set({ ...series, property })}
              placeholder="price"
              required
            />
          )}
          <PropertyFilters
            legend={`Filters of series ${i + 1}`}
            prefix={`Series ${i + 1} filter`}
            filters={series.filters}
            onChange={(filters) => set({ ...series, filters })}
          />
        </>
      )}
    </ItemList>
    <PropertyFilters
      legend="Filters of every series"
      prefix="Filter"
      filters={draft.filters}
      onChange={(filters) => onChange({ ...draft, filters })}
    />
    <div className="toolbar">
      <BreakdownFields draft={draft} onChange={onChange} />
      <Field
        label="Top values"
        type="number"
        min={1}
        value={draft.breakdownLimit}
        onChange={(breakdownLimit) => onChange({ ...draft, breakdownLimit })}
        placeholder="25"
      />
      <label className="inline">
        <input
          type="checkbox"
          checked={draft.hideOther}
          onChange={(event) => onChange({ ...draft, hideOther: event.target.checked })}
        />{" "}
        Hide "other"
      </label>
    </div>
    <div className="toolbar">
      <IntervalChoice value={draft.interval} onChange={(interval) => onChange({ ...draft, interval })} />
      <DateRangeChoice value={draft.dateFrom} onChange={(dateFrom) => onChange({ ...draft, dateFrom })} />
      <label className="inline">
        <input
          type="checkbox"
          checked={draft.compare}
          onChange={(event) => onChange({ ...draft, compare: event.target.checked })}
        />{" "}
        Compare to previous period
      </label>
      <Field
        label="Formula"
        value={draft.formula}
        onChange={(formula) => onChange({ ...draft, formula })}
        placeholder="A / B * 100"
      />
      <Choice
        label="Display"
        value={draft.display}
        options={DISPLAYS}
        onChange={(display) => onChange({ ...draft, display })}
      />
    </div>
  </>
)

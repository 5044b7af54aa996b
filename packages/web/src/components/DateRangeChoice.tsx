import { fields, oneOf } from "../queryFields.js"
import { Choice } from "./Field.js"

// The date range presets of the insight builder: PostHog's relative `date_from` values.

export const DATE_RANGES = {
  "-24h": "Last 24 hours",
  "-7d": "Last 7 days",
  "-14d": "Last 14 days",
  "-30d": "Last 30 days",
  "-90d": "Last 90 days",
  mStart: "This month",
  yStart: "Year to date"
} as const
export type DateFrom = keyof typeof DATE_RANGES

/** A stored `dateRange`'s preset. */
export const dateFromOf = (dateRange: unknown): DateFrom => oneOf(fields(dateRange)["date_from"], DATE_RANGES, "-7d")

/** The builder's date range, from a preset to now. */
export const DateRangeChoice = ({
  value,
  onChange
}: {
  readonly value: DateFrom
  readonly onChange: (value: DateFrom) => void
}) => <Choice label="Date range" value={value} options={DATE_RANGES} onChange={onChange} />

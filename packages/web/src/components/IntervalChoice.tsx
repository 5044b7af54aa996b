import { oneOf } from "../queryFields.js"
import { Choice } from "./Field.js"

// The interval of the insight kinds bucketed in time (trends, stickiness, lifecycle).

const INTERVALS = { hour: "Hour", day: "Day", week: "Week", month: "Month" } as const
export type Interval = keyof typeof INTERVALS

/** A stored `interval`. */
export const intervalOf = (value: unknown): Interval => oneOf(value, INTERVALS, "day")

export const IntervalChoice = ({
  value,
  onChange
}: {
  readonly value: Interval
  readonly onChange: (value: Interval) => void
}) => <Choice label="Interval" value={value} options={INTERVALS} onChange={onChange} />

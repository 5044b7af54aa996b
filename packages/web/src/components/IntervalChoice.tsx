import { Choice } from "./Field.js"

// The interval of the insight kinds bucketed in time (trends, stickiness, lifecycle).

const INTERVALS = { hour: "Hour", day: "Day", week: "Week", month: "Month" } as const
export type Interval = keyof typeof INTERVALS

export const IntervalChoice = ({
  value,
  onChange
}: {
  readonly value: Interval
  readonly onChange: (value: Interval) => void
}) => <Choice label="Interval" value={value} options={INTERVALS} onChange={onChange} />

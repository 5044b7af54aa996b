import type { Interval } from "../experimentModel.js"

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)}%`

/** An interval of a relative effect drawn on a scale shared by its table (`domain`), 0 marked. */
export const IntervalBar = ({ interval, domain }: { readonly interval: Interval; readonly domain: Interval }) => {
  const width = 160
  const at = (x: number) => ((x - domain.lower) / (domain.upper - domain.lower || 1)) * width
  const label = `${signed(interval.lower)} to ${signed(interval.upper)}`
  const side = interval.lower > 0 ? "better" : interval.upper < 0 ? "worse" : "unsure"
  return (
    <span className="interval">
      <svg width={width} height={14} role="img" aria-label={label}>
        <line x1={at(0)} x2={at(0)} y1={0} y2={14} className="interval-zero" />
        <rect
          x={at(interval.lower)}
          width={Math.max(2, at(interval.upper) - at(interval.lower))}
          y={3}
          height={8}
          rx={3}
          className={`interval-bar ${side}`}
        />
      </svg>
      <span className="muted">{label}</span>
    </span>
  )
}

/** The scale holding every interval and 0, with a little room. */
export const domainOf = (intervals: ReadonlyArray<Interval>): Interval => {
  const lower = Math.min(0, ...intervals.map((i) => i.lower))
  const upper = Math.max(0, ...intervals.map((i) => i.upper))
  const pad = (upper - lower) * 0.05 || 0.05
  return { lower: lower - pad, upper: upper + pad }
}

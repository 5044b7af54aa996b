import { COLORS } from "./SeriesChart.js"

// A pie of each series' share of the total, its exact value and share in the legend and in each
// slice's tooltip. Negative values (a lifecycle's dormant) have no slice.

const RADIUS = 120
const number = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 4 })

/** The SVG path of the slice from `from` to `to`, as fractions of the whole turn. */
const slice = (from: number, to: number) => {
  if (to - from >= 1) return `M ${RADIUS} 0 A ${RADIUS} ${RADIUS} 0 1 1 ${RADIUS - 0.01} 0 Z`
  const point = (at: number) => {
    const angle = 2 * Math.PI * at - Math.PI / 2
    return `${RADIUS + RADIUS * Math.cos(angle)} ${RADIUS + RADIUS * Math.sin(angle)}`
  }
  return `M ${RADIUS} ${RADIUS} L ${point(from)} A ${RADIUS} ${RADIUS} 0 ${to - from > 0.5 ? 1 : 0} 1 ${point(to)} Z`
}

export const PieChart = ({
  entries,
  title
}: {
  readonly entries: ReadonlyArray<{ readonly label: string; readonly value: number }>
  readonly title: string
}) => {
  const total = entries.reduce((sum, entry) => sum + Math.max(0, entry.value), 0)
  const share = (value: number) => (total === 0 ? 0 : Math.max(0, value) / total)
  let at = 0
  return (
    <figure className="pie-chart">
      <svg
        viewBox={`0 0 ${2 * RADIUS} ${2 * RADIUS}`}
        width={2 * RADIUS}
        height={2 * RADIUS}
        role="img"
        aria-label={`pie chart: ${title}`}
      >
        {entries.map((entry, i) => {
          const from = at
          at += share(entry.value)
          return share(entry.value) === 0 ? null : (
            <path key={i} d={slice(from, at)} fill={COLORS[i % COLORS.length]}>
              <title>{`${entry.label}: ${number(entry.value)} (${(100 * share(entry.value)).toFixed(1)}%)`}</title>
            </path>
          )
        })}
      </svg>
      <figcaption>
        <ul className="legend" aria-label="Legend">
          {entries.map((entry, i) => (
            <li key={i}>
              <span className="swatch" style={{ background: COLORS[i % COLORS.length] }} aria-hidden="true" />
              <span className="legend-label">{entry.label}</span>
              <span className="legend-total">{number(entry.value)}</span>
              <span className="muted"> {(100 * share(entry.value)).toFixed(1)}%</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  )
}

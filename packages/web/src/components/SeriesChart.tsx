import { useEffect, useMemo, useRef, useState } from "react"
import uPlot from "uplot"
import "uplot/dist/uPlot.min.css"

/** One line (or set of bars) of a chart: its name and a value per x label. */
export interface Series {
  readonly label: string
  readonly data: ReadonlyArray<number>
  /** Shown beside the legend entry (a trend's total). */
  readonly total?: number
}

export const COLORS = ["#1d4aff", "#f54e00", "#29a36a", "#a15dd8", "#d6a400", "#0095a8", "#d6336c", "#6b6b6b"]

const HEIGHT = 300

/** Tick steps for counts: whole numbers only. */
const WHOLE_STEPS = Array.from({ length: 12 }, (_, k) => [1, 2, 5].map((step) => step * 10 ** k)).flat()

/** Stacked bars: each shown series' running total at each label, positives upwards and negatives
 * downwards, so that a series drawn from 0 to it shows above (or below) the ones before it. */
const stacked = (series: ReadonlyArray<Series>, hidden: ReadonlySet<number>) => {
  const up = new Map<number, number>()
  const down = new Map<number, number>()
  return series.map((entry, i) =>
    entry.data.map((value, at) => {
      if (hidden.has(i)) return null
      const sums = value >= 0 ? up : down
      const total = (sums.get(at) ?? 0) + value
      sums.set(at, total)
      return total
    })
  )
}

/** A note at the label of index `at`. */
export interface Annotation {
  readonly at: number
  readonly text: string
}

/** One empty list: a new one each render would make the chart again each render. */
const NO_ANNOTATIONS: ReadonlyArray<Annotation> = []

export type ChartKind = "line" | "area" | "bar" | "stacked bar"

/** Scale units for a bars facet (uPlot's const enum, not importable as a value). */
const SCALE_VALUE = 1 as uPlot.Series.BarsPathBuilderFacetUnit

/** Bars of the `k`th of `n` series beside the others' at each label, sharing 70% of its width. */
const sideBySide = (k: number, n: number) => {
  const width = 0.7 / n
  const range = (from: number, to: number, value: (i: number) => number) =>
    Array.from({ length: to - from + 1 }, (_, j) => value(from + j))
  return uPlot.paths.bars!({
    disp: {
      x0: { unit: SCALE_VALUE, values: (_u, _s, from, to) => range(from, to, (i) => i - 0.35 + (k + 0.5) * width) },
      size: { unit: SCALE_VALUE, values: (_u, _s, from, to) => range(from, to, () => width) }
    }
  })
}

const number = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 4 })

/** Series over categorical x labels (dates, "1 day"…) drawn by uPlot, with a legend that toggles each
 * series and a tooltip giving every shown series' exact value at the hovered label. */
export const SeriesChart = ({
  labels,
  series,
  kind,
  title,
  annotations = NO_ANNOTATIONS,
  onPick
}: {
  readonly labels: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
  readonly kind: ChartKind
  readonly title: string
  /** Notes marked on the x axis, each at a label's index. */
  readonly annotations?: ReadonlyArray<Annotation>
  /** Called with the series (its index) and label clicked: the shown series nearest the click. */
  readonly onPick?: (series: number, at: number) => void
}) => {
  const bars = kind === "bar" || kind === "stacked bar"
  // The chart is made once per data; the handler it calls is the latest.
  const pick = useRef(onPick)
  pick.current = onPick
  const host = useRef<HTMLDivElement>(null)
  const plot = useRef<uPlot>(null)
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set())
  // uPlot draws its series in order; stacked bars go topmost first, for the lower ones to cover.
  const order = useMemo(() => {
    const indices = series.map((_, i) => i)
    return kind === "stacked bar" ? indices.reverse() : indices
  }, [series, kind])
  /** uPlot's index of series `i`. */
  const slot = (i: number) => order.indexOf(i) + 1
  const plotted = (hiding: ReadonlySet<number>): uPlot.AlignedData => {
    const values = kind === "stacked bar" ? stacked(series, hiding) : series.map((entry) => [...entry.data])
    return [labels.map((_, i) => i), ...order.map((i) => values[i]!)]
  }

  useEffect(() => {
    const element = host.current
    if (element === null) return
    const text = getComputedStyle(element).color
    const grid = getComputedStyle(element).getPropertyValue("--border")
    const tooltip = document.createElement("div")
    tooltip.className = "chart-tooltip"
    tooltip.setAttribute("role", "tooltip")
    tooltip.hidden = true
    const showTooltip = (u: uPlot) => {
      const at = u.cursor.idx
      if (at === null || at === undefined || u.cursor.left === undefined || u.cursor.left < 0) {
        tooltip.hidden = true
        return
      }
      const rows = series.flatMap((entry, i) =>
        u.series[slot(i)]?.show === false
          ? []
          : [`<li><b>${escape(entry.label)}</b>: ${number(entry.data[at] ?? 0)}</li>`]
      )
      tooltip.innerHTML = `<div>${escape(labels[at] ?? "")}</div><ul>${rows.join("")}</ul>`
      tooltip.hidden = false
      const left = u.cursor.left + 12
      tooltip.style.left = `${Math.min(left, u.over.clientWidth - 180)}px`
      tooltip.style.top = `${Math.max(0, (u.cursor.top ?? 0) - 10)}px`
    }
    // How long drawing takes (the browser tests read it): from here to the frame after uPlot drew.
    performance.mark("chart-start")
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }
    const made = new uPlot(
      {
        width: element.clientWidth || 800,
        height: HEIGHT,
        legend: { show: false },
        scales: { x: { time: false, range: () => [-0.5, labels.length - 0.5] } },
        axes: [
          {
            ...axis,
            // Room for a whole date label per tick.
            space: 100,
            incrs: [1, 2, 3, 5, 7, 10, 14, 30, 60, 90, 180, 365],
            values: (_u, ticks) => ticks.map((tick) => labels[tick] ?? "")
          },
          {
            ...axis,
            size: 60,
            incrs: series.every((entry) => entry.data.every(Number.isInteger)) ? WHOLE_STEPS : undefined,
            values: (_u, ticks) => ticks.map(number)
          }
        ],
        series: [
          { label: "x" },
          ...order.map((i) => {
            const color = COLORS[i % COLORS.length]!
            return {
              label: series[i]!.label,
              stroke: color,
              width: bars ? 0 : 2,
              fill: kind === "line" ? undefined : bars ? color : `${color}33`,
              paths:
                kind === "bar" && series.length > 1
                  ? sideBySide(order.indexOf(i), series.length)
                  : bars
                    ? uPlot.paths.bars!({ size: [0.7, 64] })
                    : undefined,
              points: { show: !bars && labels.length <= 60 }
            }
          })
        ],
        hooks: {
          setCursor: [showTooltip],
          draw: [
            (u) => {
              // A dashed line at each annotated label.
              const { ctx } = u
              ctx.save()
              ctx.strokeStyle = text
              ctx.setLineDash([4, 4])
              for (const note of annotations) {
                const x = Math.round(u.valToPos(note.at, "x", true))
                ctx.beginPath()
                ctx.moveTo(x, u.bbox.top)
                ctx.lineTo(x, u.bbox.top + u.bbox.height)
                ctx.stroke()
              }
              ctx.restore()
            }
          ]
        }
      },
      plotted(new Set()),
      element
    )
    made.over.append(tooltip)
    requestAnimationFrame(() => performance.measure("chart-draw", "chart-start"))
    for (const note of annotations) {
      const marker = document.createElement("span")
      marker.className = "annotation-marker"
      marker.title = `${labels[note.at] ?? ""}: ${note.text}`
      marker.style.left = `${made.valToPos(note.at, "x")}px`
      made.over.append(marker)
    }
    made.over.addEventListener("mouseleave", () => (tooltip.hidden = true))
    made.over.addEventListener("click", () => {
      const at = made.cursor.idx
      if (pick.current === undefined || at == null || made.cursor.top === undefined) return
      const y = made.posToVal(made.cursor.top, "y")
      const distance = (i: number) =>
        made.series[slot(i)]!.show === false ? Infinity : Math.abs((made.data[slot(i)]![at] ?? 0) - y)
      const nearest = series.reduce((best, _, i) => (distance(i) < distance(best) ? i : best), 0)
      if (distance(nearest) < Infinity) pick.current(nearest, at)
    })
    plot.current = made
    setHidden(new Set())
    const resize = () => made.setSize({ width: element.clientWidth || 800, height: HEIGHT })
    addEventListener("resize", resize)
    return () => {
      removeEventListener("resize", resize)
      made.destroy()
      plot.current = null
    }
  }, [labels, series, kind, annotations])

  const toggle = (i: number) => {
    const next = new Set(hidden)
    if (next.has(i)) next.delete(i)
    else next.add(i)
    plot.current?.setSeries(slot(i), { show: !next.has(i) })
    // The bars above a hidden one come down into its place.
    if (kind === "stacked bar") plot.current?.setData(plotted(next))
    setHidden(next)
  }

  /** Saves `data` as a file named after the chart. */
  const download = (href: string, extension: string) => {
    const link = document.createElement("a")
    link.href = href
    link.download = `${title}.${extension}`
    link.click()
  }
  const csv = () => {
    const cell = (value: string | number) =>
      /[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : value
    const rows = [
      ["", ...series.map((entry) => entry.label)],
      ...labels.map((label, at) => [label, ...series.map((entry) => entry.data[at] ?? 0)])
    ]
    const text = rows.map((row) => row.map(cell).join(",")).join("\n")
    download(URL.createObjectURL(new Blob([text], { type: "text/csv" })), "csv")
  }

  return (
    <figure className="series-chart">
      <div
        ref={host}
        className={onPick ? "chart pickable" : "chart"}
        role="img"
        aria-label={`${kind} chart: ${title}`}
      />
      <figcaption>
        <div className="toolbar chart-export">
          <button
            type="button"
            onClick={() => plot.current && download(plot.current.ctx.canvas.toDataURL("image/png"), "png")}
          >
            Export PNG
          </button>
          <button type="button" onClick={csv}>
            Export CSV
          </button>
        </div>
        {annotations.length > 0 && (
          <ul className="annotations" aria-label="Annotations">
            {annotations.map((note, i) => (
              <li key={i}>
                <span className="muted">{labels[note.at]}</span> {note.text}
              </li>
            ))}
          </ul>
        )}
        <ul className="legend" aria-label="Legend">
          {series.map((entry, i) => (
            <li key={`${i}-${entry.label}`}>
              <button type="button" aria-pressed={!hidden.has(i)} onClick={() => toggle(i)}>
                <span className="swatch" style={{ background: COLORS[i % COLORS.length] }} aria-hidden="true" />
                <span className="legend-label">{entry.label}</span>
                {entry.total !== undefined && <span className="legend-total">{number(entry.total)}</span>}
              </button>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  )
}

const escape = (text: string) =>
  text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!)

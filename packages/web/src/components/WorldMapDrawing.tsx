import { type CSSProperties, type MouseEvent, useRef, useState } from "react"
import { COUNTRIES, HEIGHT, WIDTH } from "./worldShapes.js"
import { type MapValue, number } from "./WorldMap.js"

// The world map's drawing, loaded lazily with the countries' shapes: each country with a value
// shaded by it (from a pale to the full accent colour at the largest), a tooltip with its name and
// exact value on hover or keyboard focus, a legend of the scale, and the values that have no shape
// on the map (small countries, "Other", no country) listed below it.

/** The accent's share of a country's colour: 15% for the smallest values, 100% at the largest. */
const shade = (value: number, max: number) => 15 + 85 * Math.min(1, Math.max(0, max > 0 ? value / max : 0))

interface Tip {
  /** A tooltip shown by keyboard focus stays while the mouse passes by (or the page scrolls under it). */
  readonly by: "mouse" | "focus"
  readonly text: string
  readonly left: number
  readonly top: number
}

const WorldMapDrawing = ({ values, title }: { readonly values: ReadonlyArray<MapValue>; readonly title: string }) => {
  const box = useRef<HTMLDivElement>(null)
  const [tip, setTip] = useState<Tip>()
  const byCode = new Map(values.flatMap((entry) => (entry.code ? [[entry.code, entry] as const] : [])))
  const drawn = new Set(
    COUNTRIES.flatMap((country) => (country.code && byCode.has(country.code) ? [country.code] : []))
  )
  const elsewhere = values.filter((entry) => !entry.code || !drawn.has(entry.code))
  const max = Math.max(0, ...values.map((entry) => entry.value))
  const describe = (entry: MapValue) => `${entry.label}: ${number(entry.value)}`
  /** The tooltip at `x, y` (viewport coordinates), kept inside the map's box. */
  const show = (by: Tip["by"], text: string, x: number, y: number) => {
    const frame = box.current!.getBoundingClientRect()
    setTip({ by, text, left: Math.min(x - frame.left + 12, frame.width - 160), top: Math.max(0, y - frame.top - 36) })
  }
  return (
    <figure className="world-map-figure">
      <div className="map-box" ref={box}>
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="group"
          aria-label={`world map: ${title}`}
          onMouseLeave={() => setTip((shown) => (shown?.by === "mouse" ? undefined : shown))}
        >
          {COUNTRIES.map((country, i) => {
            const entry = country.code ? byCode.get(country.code) : undefined
            if (!entry) return <path key={i} d={country.path} className="country" aria-hidden="true" />
            return (
              <path
                key={i}
                d={country.path}
                className="country valued"
                style={{ "--shade": `${shade(entry.value, max)}%` } as CSSProperties}
                role="img"
                aria-label={describe(entry)}
                data-code={entry.code}
                tabIndex={0}
                onMouseMove={(event: MouseEvent) => show("mouse", describe(entry), event.clientX, event.clientY)}
                onFocus={(event) => {
                  const shape = event.currentTarget.getBoundingClientRect()
                  show("focus", describe(entry), shape.left + shape.width / 2, shape.top + shape.height / 2)
                }}
                onBlur={() => setTip(undefined)}
              />
            )
          })}
        </svg>
        {tip && (
          <div className="chart-tooltip" role="tooltip" style={{ left: tip.left, top: tip.top }}>
            {tip.text}
          </div>
        )}
      </div>
      <figcaption>
        <div className="map-scale" aria-hidden="true">
          <span>0</span>
          <span className="map-gradient" />
          <span>{number(max)}</span>
          <span className="swatch map-empty" /> <span>no data</span>
        </div>
        {elsewhere.length > 0 && (
          <p className="muted">
            Not on the map:{" "}
            {elsewhere.map((entry, i) => (
              <span key={entry.label} className="map-elsewhere">
                {i > 0 && " · "}
                {describe(entry)}
              </span>
            ))}
          </p>
        )}
      </figcaption>
    </figure>
  )
}

export default WorldMapDrawing

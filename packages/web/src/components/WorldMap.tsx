import { lazy, Suspense } from "react"
import { ListHead } from "./ListHead.js"

// A trend broken down by country code (`$geoip_country_code`) as a choropleth world map. The map
// itself (the countries' shapes, some 40 KB compressed) is its own chunk, fetched when a map is
// first drawn; the values are in a table for screen readers from the start.

/** One breakdown value of the mapped series: a country code when `code` is set. */
export interface MapValue {
  readonly code: string | undefined
  /** The country's name, or the breakdown value as the API names it ("Other", "None"…). */
  readonly label: string
  readonly value: number
}

const WorldMapDrawing = lazy(() => import("./WorldMapDrawing.js"))

const regionNames = new Intl.DisplayNames(undefined, { type: "region", fallback: "none" })

/** The browser's name for country `code`, or undefined when it knows none. */
export const countryName = (code: string) => {
  try {
    return regionNames.of(code)
  } catch {
    return undefined
  }
}

/** A trend entry as the map reads it (a subset of the insight result's). */
interface MapEntry {
  readonly label: string
  readonly count: number
  readonly aggregated_value?: number
  readonly breakdown_value?: unknown
  readonly compare_label?: string
  readonly action?: { readonly order?: number } | null
}

/** The first series' values (current period, when compared) by breakdown value, as PostHog's map
 * shows one series. */
export const mapValues = (entries: ReadonlyArray<MapEntry>): ReadonlyArray<MapValue> => {
  const first = entries[0]
  return entries
    .filter((entry) => entry.action?.order === first?.action?.order && entry.compare_label === first?.compare_label)
    .map((entry) => {
      const raw = String(entry.breakdown_value ?? entry.label).toUpperCase()
      const name = /^[A-Z]{2}$/.test(raw) ? countryName(raw) : undefined
      return {
        code: name === undefined ? undefined : raw,
        label: name ?? entry.label,
        value: entry.aggregated_value ?? entry.count
      }
    })
}

export const number = (value: number) => value.toLocaleString(undefined, { maximumFractionDigits: 4 })

export const WorldMap = ({ entries, title }: { readonly entries: ReadonlyArray<MapEntry>; readonly title: string }) => {
  const values = mapValues(entries)
  if (values.length === 0) return <p className="muted">No data in this range.</p>
  return (
    <div className="world-map">
      <Suspense fallback={<p className="muted">Loading the map…</p>}>
        <WorldMapDrawing values={values} title={title} />
      </Suspense>
      <table className="visually-hidden" aria-label={`${title}: values by country`}>
        <ListHead columns={["Country", "Value"]} />
        <tbody>
          {values.map((entry) => (
            <tr key={entry.label}>
              <th scope="row">{entry.label}</th>
              <td>{number(entry.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

import { geoEqualEarth, geoPath } from "d3-geo"
import codes from "i18n-iso-countries/codes.json"
import type { GeometryCollection } from "topojson-specification"
import { feature } from "topojson-client"
import atlas from "world-atlas/countries-110m.json"

// The countries of Natural Earth's 1:110m map (world-atlas), projected once (Equal Earth, so that
// areas compare fairly) to SVG paths keyed by ISO 3166-1 alpha-2 code, the form of PostHog's
// `$geoip_country_code`. Imported only by the world map, dynamically: its own chunk, fetched when a
// map is first drawn.

export const WIDTH = 960

/** Antarctica is left out: no one's analytics are there, and it would take a fifth of the height. */
const LEFT_OUT = new Set(["010"])

const alpha2 = new Map(codes.map(([code, , numeric]) => [numeric, code]))

export interface CountryShape {
  /** The alpha-2 code; undefined for the few shapes without an ISO code (Kosovo, Somaliland…). */
  readonly code: string | undefined
  /** Natural Earth's English name, when the browser has none for the code. */
  readonly name: string
  readonly path: string
}

const collection = feature(atlas, atlas.objects["countries"] as GeometryCollection<{ name: string }>)
const shown = collection.features.filter((country) => !LEFT_OUT.has(String(country.id)))
const projection = geoEqualEarth().fitWidth(WIDTH, { type: "FeatureCollection", features: shown })
const toPath = geoPath(projection).digits(1)
const [, [, bottom]] = toPath.bounds({ type: "FeatureCollection", features: shown })

export const HEIGHT = Math.ceil(bottom)

export const COUNTRIES: ReadonlyArray<CountryShape> = shown.map((country) => ({
  code: alpha2.get(String(country.id)),
  name: country.properties.name,
  path: toPath(country) ?? ""
}))

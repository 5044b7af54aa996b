// Types of the JSON files the world map reads, declared here rather than inferred from their text.

declare module "world-atlas/countries-110m.json" {
  const topology: import("topojson-specification").Topology
  export default topology
}

declare module "i18n-iso-countries/codes.json" {
  /** [alpha-2, alpha-3, numeric, ISO 3166-2 name] per country. */
  const codes: ReadonlyArray<readonly [string, string, string, string]>
  export default codes
}

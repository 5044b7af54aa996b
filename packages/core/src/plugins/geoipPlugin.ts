import { isObject } from "../domain/json.js"

/** The location fields PostHog's GeoIP step always writes to the person, as `$geoip_<field>`. */
export const GEOIP_FIELDS = [
  "city_name",
  "city_confidence",
  "subdivision_2_name",
  "subdivision_2_code",
  "subdivision_1_name",
  "subdivision_1_code",
  "country_name",
  "country_code",
  "continent_name",
  "continent_code",
  "postal_code",
  "latitude",
  "longitude",
  "accuracy_radius",
  "time_zone"
] as const

const initial = (geoipKey: string) => `$initial_${geoipKey.slice(1)}`

// Fields the lookup does not know are set to null, so a person who moved loses the old city rather
// than keeping it beside the new country (PostHog does the same).
const UNKNOWN_SET = Object.fromEntries(GEOIP_FIELDS.map((field) => [`$geoip_${field}`, null]))
const UNKNOWN_SET_ONCE = Object.fromEntries(GEOIP_FIELDS.map((field) => [initial(`$geoip_${field}`), null]))

/**
 * PostHog's GeoIP transformation as a pure step: the `$geoip_*` properties `lookup` finds for `$ip`
 * are added to the event, to the person's `$set`, and to `$set_once` as `$initial_geoip_*`. The
 * person updates start from null for every standard field, then what the event itself sets, then the
 * location. Skipped, returning the properties unchanged, when `$geoip_disable` is truthy, when there
 * is no `$ip`, or when the lookup knows nothing (it returns `{}`, as `GeoIp.lookup` does).
 */
export const geoipEnrich = (
  properties: Readonly<Record<string, unknown>>,
  lookup: (ip: string) => Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  const ip = properties["$ip"]
  if (properties["$geoip_disable"] || typeof ip !== "string" || ip === "") return { ...properties }
  const location = Object.entries(lookup(ip)).filter(
    ([key, value]) => key.startsWith("$geoip_") && key !== "$geoip_disable" && value !== undefined
  )
  if (location.length === 0) return { ...properties }
  const set = isObject(properties["$set"]) ? properties["$set"] : {}
  const setOnce = isObject(properties["$set_once"]) ? properties["$set_once"] : {}
  return {
    ...properties,
    ...Object.fromEntries(location),
    $set: { ...UNKNOWN_SET, ...set, ...Object.fromEntries(location) },
    $set_once: {
      ...UNKNOWN_SET_ONCE,
      ...setOnce,
      ...Object.fromEntries(location.map(([key, value]) => [initial(key), value]))
    }
  }
}

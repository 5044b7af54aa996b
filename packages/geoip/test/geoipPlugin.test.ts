import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, memoryStorage, type Zed } from "@zed/core"
import { ADMIN_KEY, call, PROJECT_KEY } from "../../core/test/support.js"
import { DbipGeoIp } from "../src/index.js"

// The GeoIP plugin with the DB-IP database: enabled by default, it adds `$geoip_*` to captured
// events and their person; switched off through its plugin config, it adds nothing.

let zed: Zed
beforeAll(async () => {
  zed = await createZed({
    storage: memoryStorage(),
    geoip: DbipGeoIp,
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
  })
})
afterAll(() => zed.close())

const capture = async (event: string, distinctId: string, properties: Record<string, unknown>) => {
  const res = await call(zed, "/batch/", {
    method: "POST",
    key: null,
    body: JSON.stringify({ api_key: PROJECT_KEY, batch: [{ event, distinct_id: distinctId, properties }] })
  })
  expect(res.status, res.text).toBe(200)
}

interface StoredEvent {
  readonly properties: Record<string, unknown>
  readonly person: { readonly properties: Record<string, unknown> } | null
}

const storedEvent = async (event: string): Promise<StoredEvent> => {
  const res = await call(zed, `/api/environments/1/events/?event=${event}`)
  expect(res.status, res.text).toBe(200)
  expect(res.json.results).toHaveLength(1)
  return res.json.results[0]
}

const geoipKeys = (properties: Record<string, unknown>) => Object.keys(properties).filter((k) => k.includes("geoip"))

describe("the GeoIP plugin", () => {
  it("locates the event's $ip and sets the location on the person", async () => {
    await capture("located", "geo-person", { $ip: "8.8.8.8" })
    const { person, properties } = await storedEvent("located")
    expect(properties["$geoip_country_code"]).toBe("US")
    expect(properties["$geoip_country_name"]).toBe("United States")
    expect(person?.properties["$geoip_country_code"]).toBe("US")
    expect(person?.properties["$initial_geoip_country_code"]).toBe("US")
  })

  it("adds nothing once its plugin config is disabled", async () => {
    const configs = await call(zed, "/api/environments/1/plugin_configs/")
    const geoip = configs.json.results.find((c: { name: string }) => c.name === "GeoIP")
    expect(geoip.enabled).toBe(true)
    const patched = await call(zed, `/api/environments/1/plugin_configs/${geoip.id}/`, {
      method: "PATCH",
      body: JSON.stringify({ enabled: false })
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json.enabled).toBe(false)

    await capture("unlocated", "other-person", { $ip: "8.8.8.8" })
    const { person, properties } = await storedEvent("unlocated")
    expect(properties["$ip"]).toBe("8.8.8.8")
    expect(geoipKeys(properties)).toEqual([])
    expect(geoipKeys(person?.properties ?? {})).toEqual([])
  })
})

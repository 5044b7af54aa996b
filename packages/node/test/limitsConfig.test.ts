import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "@effect/vitest"
import { DEFAULT_LIMITS, DEFAULT_SHUTDOWN_GRACE_MS } from "@zed/core"
import { ConfigProvider, Effect } from "effect"
import { serve, ServerConfig } from "../src/index.js"

// `zed serve` takes the request size limits and the shutdown grace period from the environment,
// each at its default unless set.

const configFrom = (env: Record<string, string>) =>
  Effect.runPromise(Effect.withConfigProvider(ServerConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

it("reads body limits and events per batch from the environment, refusing what is not a positive integer", async () => {
  expect((await configFrom({})).limits).toEqual({
    bodyBytes: DEFAULT_LIMITS.bodyBytes,
    eventsPerBatch: DEFAULT_LIMITS.eventsPerBatch
  })
  const set = await configFrom({
    ZED_BODY_LIMIT_CAPTURE: "1000",
    ZED_BODY_LIMIT_API: "2000",
    ZED_EVENTS_PER_BATCH: "2"
  })
  expect(set.limits).toEqual({
    bodyBytes: { ...DEFAULT_LIMITS.bodyBytes, capture: 1000, api: 2000 },
    eventsPerBatch: 2
  })
  await expect(configFrom({ ZED_EVENTS_PER_BATCH: "0" })).rejects.toThrow(
    /ZED_EVENTS_PER_BATCH must be a positive integer/
  )
  await expect(configFrom({ ZED_BODY_LIMIT_BATCH: "1e20" })).rejects.toThrow(/ZED_BODY_LIMIT_BATCH/)
})

it("reads the shutdown grace period from the environment", async () => {
  expect((await configFrom({})).shutdownGraceMs).toBe(DEFAULT_SHUTDOWN_GRACE_MS)
  expect((await configFrom({ ZED_SHUTDOWN_GRACE_MS: "2500" })).shutdownGraceMs).toBe(2500)
  await expect(configFrom({ ZED_SHUTDOWN_GRACE_MS: "-1" })).rejects.toThrow(
    /ZED_SHUTDOWN_GRACE_MS must be a positive integer/
  )
})

it("serves with them", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "zed-limits-"))
  const config = await configFrom({
    PORT: "0",
    HOST: "127.0.0.1",
    ZED_DATA_DIR: dataDir,
    ZED_GEOIP: "false",
    ZED_BODY_LIMIT_CAPTURE: "1000",
    ZED_EVENTS_PER_BATCH: "2"
  })
  const running = await serve(config, () => {})
  try {
    const token = running.zed.bootstrap.created ? running.zed.bootstrap.credentials.project_api_key : ""
    const post = (path: string, body: unknown) =>
      fetch(`${running.url}${path}`, { method: "POST", body: JSON.stringify(body) })
    const event = (pad: number) => ({ event: "e", distinct_id: "d", properties: { pad: "x".repeat(pad) } })
    expect((await post("/e/", { ...event(10), api_key: token })).status).toBe(200)
    expect((await post("/e/", { ...event(1000), api_key: token })).status).toBe(413)
    expect((await post("/batch/", { api_key: token, batch: [event(1), event(1)] })).status).toBe(200)
    expect((await post("/batch/", { api_key: token, batch: [event(1), event(1), event(1)] })).status).toBe(400)
  } finally {
    await running.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})

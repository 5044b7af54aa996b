import { describe, expect, it } from "@effect/vitest"
import { createZed, memoryStorage } from "@zed/core"
import { zedRouteHandlers } from "../src/index.js"

const KEY = "phx_next_adapter_test_key_00000001"
const request = (url: string, init: RequestInit = {}) =>
  new Request(url, { ...init, headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" } })

describe("Next.js route handlers", () => {
  it("serve Zed from a catch-all route, stripping the base path", async () => {
    const { GET, POST } = zedRouteHandlers(
      () => createZed({ storage: memoryStorage(), bootstrap: { personalApiKey: KEY } }),
      {
        basePath: "/analytics",
        instance: "base-path"
      }
    )
    const created = await POST(
      request("https://site.example/analytics/api/projects/", { method: "POST", body: '{"name":"Web"}' })
    )
    expect(created.status).toBe(201)
    const list = await (await GET(request("https://site.example/analytics/api/projects/?limit=1"))).json()
    expect(list.count).toBe(2)
    expect(list.next).toBe("https://site.example/analytics/api/projects/?limit=1&offset=1")
    expect((await GET(request("https://site.example/elsewhere/api/projects/"))).status).toBe(404)
  })

  it("create the instance once, on first request, and keep it across re-evaluation", async () => {
    let created = 0
    const factory = () => {
      created++
      return createZed({ storage: memoryStorage(), bootstrap: { personalApiKey: KEY } })
    }
    const first = zedRouteHandlers(factory, { instance: "shared" })
    expect(created).toBe(0)
    const again = zedRouteHandlers(factory, { instance: "shared" })
    await first.POST(request("http://x/api/projects/", { method: "POST", body: '{"name":"Kept"}' }))
    const names = (await (await again.GET(request("http://x/api/projects/"))).json()).results.map(
      (p: { name: string }) => p.name
    )
    expect(names).toEqual(["Default project", "Kept"])
    expect(created).toBe(1)
  })

  it("retry creation after a failed start", async () => {
    let attempts = 0
    const { GET } = zedRouteHandlers(
      async () => {
        if (attempts++ === 0) throw new Error("database not up yet")
        return createZed({ storage: memoryStorage(), bootstrap: { personalApiKey: KEY } })
      },
      { instance: "retry" }
    )
    await expect(GET(request("http://x/_health"))).rejects.toThrow("database not up yet")
    expect((await GET(request("http://x/_health"))).status).toBe(200)
  })
})

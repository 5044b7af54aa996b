import { describe, expect, it } from "@effect/vitest"
import { memoryZed, PROJECT_KEY } from "./support.js"

// zed.close() as an embedding app sees it: not ready at once, requests under way finish and what
// they were acknowledged for is stored, and the grace period bounds the wait.

const readyz = async (zed: Awaited<ReturnType<typeof memoryZed>>) => {
  const res = await zed.handler(new Request("http://zed.test/_readyz"))
  return { status: res.status, retryAfter: res.headers.get("retry-after"), json: await res.json() }
}

/** A batch request whose body arrives only when `finish` is called. */
const slowBatch = (zed: Awaited<ReturnType<typeof memoryZed>>, uuid: string) => {
  const body = new TextEncoder().encode(
    JSON.stringify({ api_key: PROJECT_KEY, batch: [{ event: "late", distinct_id: "d", uuid }] })
  )
  let finish = () => {}
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      controller.enqueue(body.subarray(0, 10))
      finish = () => {
        controller.enqueue(body.subarray(10))
        controller.close()
      }
    }
  })
  const answer = zed.handler(
    new Request("http://zed.test/batch/", { method: "POST", body: stream, duplex: "half" } as RequestInit)
  )
  return { answer, finish: () => finish() }
}

describe("zed.close()", () => {
  it("is not ready at once, lets a request under way finish and store its events, then closes", async () => {
    const zed = await memoryZed()
    expect(await readyz(zed)).toMatchObject({ status: 200, json: { status: "ready" } })
    const uuid = "0190a3b2-0000-7000-8000-000000000001"
    const batch = slowBatch(zed, uuid)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const closed = zed.close()
    expect(await readyz(zed)).toEqual({
      status: 503,
      retryAfter: expect.stringMatching(/^\d+$/),
      json: { type: "server_error", code: "shutting_down", detail: "This instance is shutting down.", attr: null }
    })
    batch.finish()
    expect((await batch.answer).status).toBe(200)
    await closed
    expect(zed.close()).toBe(zed.close())
  })

  it("waits no longer than the grace period for a request that never finishes", async () => {
    const zed = await memoryZed()
    void slowBatch(zed, "0190a3b2-0000-7000-8000-000000000002").answer.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await zed.close({ graceMs: 300 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})

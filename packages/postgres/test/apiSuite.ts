import { afterAll, beforeAll, expect } from "@effect/vitest"
import { createZed, type LimitsOptions, type Zed } from "@zed/core"
import { ADMIN_KEY, call, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// What the API suites (cohorts, exports) share: a Zed on a fresh backend per suite, set up with the
// test keys before its tests and closed after them, and requests to its project 1 as the admin.

export interface ApiSuite {
  /** The suite's Zed, once its `beforeAll` has run. */
  readonly zed: Zed
  /** A request to `/api/<prefix>/1<path>` with the admin key. */
  readonly send: (method: string, path: string, body?: unknown, prefix?: string) => ReturnType<typeof call>
  /** A cohort's members as the API lists them: its count and each one's first distinct id, sorted. */
  readonly members: (id: number) => Promise<{ readonly count: number; readonly ids: ReadonlyArray<string> }>
}

/** Registers the suite's set-up and tear-down on backend `backend` (see backends.ts); call inside `describe`. */
export const apiSuite = (name: string, backend: string, limits?: LimitsOptions): ApiSuite => {
  let zed: Zed | undefined
  let cleanup: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const made = await backends(name)[backend]!()
    cleanup = made.cleanup
    zed = await createZed({
      storage: made.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null },
      limits
    })
  })
  afterAll(async () => {
    await zed?.close()
    await cleanup()
  })
  const suite: ApiSuite = {
    get zed() {
      if (zed === undefined) throw new Error("the suite's Zed is made in beforeAll")
      return zed
    },
    send: (method, path, body, prefix = "projects") =>
      call(suite.zed, `/api/${prefix}/1${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        key: ADMIN_KEY
      }),
    members: async (id) => {
      const res = await suite.send("GET", `/cohorts/${id}/persons/?limit=1000`)
      expect(res.status, res.text).toBe(200)
      const results = res.json.results as Array<{ distinct_ids: Array<string> }>
      return { count: res.json.count as number, ids: results.map((p) => p.distinct_ids[0]!).sort() }
    }
  }
  return suite
}

import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { evaluateFlags, type FlagDefinition } from "@zed/core/domain"
import fc from "fast-check"
import { SHARED_ABSENCE_MS } from "../../core/src/ingest/personCache.js"
import { context } from "../../core/test/flagSupport.js"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"

// Flag requests answered from what Zed keeps in memory (persons and their absence, flags, the quota
// count) must never answer what storage no longer says: on the embedded store, where this process
// writes every person, and on a PostgreSQL server shared by instances, where an absence is trusted
// only briefly.

const PROJECT_KEY = "phc_flags_serving_project_000001"
const ADMIN_KEY = "phx_flags_serving_personal_00001"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const pgliteDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-flags-serving-"))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  return join(dir, "pgdata")
}

const serverDatabase = async () => {
  const db = await temporaryDatabase(TEST_SERVER_URL)
  cleanups.push(db.drop)
  return db.url
}

const open = async (storage: Parameters<typeof createZed>[0]["storage"]) => {
  const zed = await createZed({ storage, bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY } })
  cleanups.push(() => zed.close())
  return zed
}

const api = async (zed: Zed, method: string, path: string, body?: unknown) => {
  const res = await zed.handler(
    new Request(`http://zed.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  )
  expect(res.status, `${method} ${path}`).toBeLessThan(300)
  return res.status === 204 || res.status === 202 ? undefined : res.json()
}

const capture = async (zed: Zed, batch: ReadonlyArray<Record<string, unknown>>) => {
  const res = await zed.handler(
    new Request("http://zed.test/batch/", { method: "POST", body: JSON.stringify({ api_key: PROJECT_KEY, batch }) })
  )
  expect(res.status).toBe(200)
}

type Props = Record<string, unknown>

const flagsFor = async (zed: Zed, distinctId: string, personProperties?: Props) => {
  const res = await zed.handler(
    new Request("http://zed.test/flags/?v=2", {
      method: "POST",
      body: JSON.stringify({
        token: PROJECT_KEY,
        distinct_id: distinctId,
        ...(personProperties ? { person_properties: personProperties } : {})
      })
    })
  )
  const body = await res.json()
  return Object.fromEntries(
    Object.entries(body.flags ?? {}).map(([key, flag]) => [
      key,
      (flag as { enabled: boolean; variant: string | null }).variant ?? (flag as { enabled: boolean }).enabled
    ])
  )
}

const FLAGS = [
  {
    key: "pro",
    filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: "pro" }] }] }
  },
  {
    key: "big",
    filters: {
      groups: [{ properties: [{ key: "seats", type: "person", operator: "gte", value: 10 }], rollout_percentage: 80 }]
    }
  },
  { key: "unnamed", filters: { groups: [{ properties: [{ key: "name", type: "person", operator: "is_not_set" }] }] } },
  {
    key: "split",
    filters: {
      groups: [{ properties: [{ key: "plan", type: "person", operator: "is_not", value: "free" }] }],
      multivariate: {
        variants: [
          { key: "a", rollout_percentage: 50 },
          { key: "b", rollout_percentage: 50 }
        ]
      }
    }
  }
]

const defineFlags = async (zed: Zed) => {
  for (const flag of FLAGS) await api(zed, "POST", "/api/projects/1/feature_flags/", flag)
  return (await api(zed, "GET", "/api/projects/1/feature_flags/local_evaluation"))
    .flags as ReadonlyArray<FlagDefinition>
}

/** What the flags must be, from the person as storage has it now (the persons API reads storage). */
const expectedFlags = async (
  zed: Zed,
  flags: ReadonlyArray<FlagDefinition>,
  distinctId: string,
  overrides: Props | undefined
) => {
  const found = (await api(zed, "GET", `/api/projects/1/persons/?distinct_id=${encodeURIComponent(distinctId)}`))
    .results
  const { results } = evaluateFlags(
    flags,
    context({
      distinctId,
      personProperties: { ...found[0]?.properties, ...overrides },
      groupTypes: new Map(),
      now: new Date()
    })
  )
  return Object.fromEntries([...results.values()].map((r) => [r.key, r.enabled ? (r.variant ?? true) : false]))
}

const ID = fc.constantFrom("ann", "bob", "cat")
const PROPS = fc.record(
  {
    plan: fc.constantFrom("free", "pro", "team"),
    seats: fc.integer({ min: 0, max: 20 }),
    name: fc.constantFrom("A", "B")
  },
  { requiredKeys: [] }
)
const OPERATION = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), id: ID, set: PROPS }),
  fc.record({ kind: fc.constant("identify" as const), id: ID, anon: ID }),
  fc.record({ kind: fc.constant("delete" as const), id: ID }),
  fc.record({ kind: fc.constant("flags" as const), id: ID, overrides: fc.option(PROPS, { nil: undefined }) }),
  fc.record({ kind: fc.constant("flags" as const), id: ID, overrides: fc.constant(undefined) })
)

type Operation = typeof OPERATION extends fc.Arbitrary<infer T> ? T : never

/** A random interleaving of person writes and flag requests: every answer must agree with storage. */
const agreesWithStorage = async (
  zed: Zed,
  flags: ReadonlyArray<FlagDefinition>,
  run: number,
  operations: ReadonlyArray<Operation>
) => {
  // Each run has its own distinct ids, so runs do not see each other's persons.
  const idOf = (id: string) => `${id}-${run}`
  for (const op of operations) {
    if (op.kind === "set")
      await capture(zed, [{ event: "$set", distinct_id: idOf(op.id), properties: { $set: op.set } }])
    else if (op.kind === "identify") {
      await capture(zed, [
        { event: "$identify", distinct_id: idOf(op.id), properties: { $anon_distinct_id: idOf(op.anon) } }
      ])
    } else if (op.kind === "delete") {
      const found = (await api(zed, "GET", `/api/projects/1/persons/?distinct_id=${idOf(op.id)}`)).results
      if (found.length > 0) await api(zed, "DELETE", `/api/projects/1/persons/${found[0].id}/`)
    } else {
      // Asked twice: the second is answered from memory where it can be.
      for (let i = 0; i < 2; i++) {
        expect(await flagsFor(zed, idOf(op.id), op.overrides)).toEqual(
          await expectedFlags(zed, flags, idOf(op.id), op.overrides)
        )
      }
    }
  }
}

describe.each([
  ["PGlite", async () => pgliteStorage({ dataDir: pgliteDir() })],
  ["PostgreSQL server", async () => postgresStorage({ url: await serverDatabase() })]
])("flags on %s", (_, storage) => {
  it("never answer from a kept person or absence that storage no longer has", async () => {
    const zed = await open(await storage())
    const flags = await defineFlags(zed)
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(OPERATION, { minLength: 1, maxLength: 14 }), (operations) =>
        agreesWithStorage(zed, flags, run++, operations)
      ),
      {
        numRuns: 30,
        // An absence kept, then the person stored, merged into, or deleted and stored again.
        examples: [
          [
            [
              { kind: "flags", id: "ann", overrides: undefined },
              { kind: "set", id: "ann", set: { plan: "pro" } },
              { kind: "flags", id: "ann", overrides: undefined }
            ]
          ],
          [
            [
              { kind: "flags", id: "bob", overrides: undefined },
              { kind: "set", id: "ann", set: { plan: "pro" } },
              { kind: "identify", id: "ann", anon: "bob" },
              {
                kind: "flags",
                id: "bob",
                overrides: undefined
              }
            ]
          ],
          [
            [
              { kind: "set", id: "cat", set: { plan: "pro" } },
              { kind: "flags", id: "cat", overrides: undefined },
              { kind: "delete", id: "cat" },
              {
                kind: "flags",
                id: "cat",
                overrides: undefined
              },
              { kind: "set", id: "cat", set: { seats: 12 } },
              { kind: "flags", id: "cat", overrides: undefined }
            ]
          ]
        ]
      }
    )
  })
})

describe("flags on a PostgreSQL server shared by two instances", () => {
  it("trust an absence only briefly, and take the SDK's person_properties at once", async () => {
    const url = await serverDatabase()
    const a = await open(postgresStorage({ url }))
    const b = await open(postgresStorage({ url }))
    await defineFlags(a)
    expect((await flagsFor(a, "late")).pro).toBe(false)
    // B stores the person; A may still hold the absence, but only briefly.
    await capture(b, [{ event: "$identify", distinct_id: "late", properties: { $set: { plan: "pro" } } }])
    const stored = Date.now()
    // What posthog-js does right after identify: reload flags with the properties it just set.
    expect((await flagsFor(a, "late", { plan: "pro" })).pro).toBe(true)
    while (!(await flagsFor(a, "late")).pro) {
      expect(Date.now() - stored).toBeLessThan(SHARED_ABSENCE_MS + 1000)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  it("apply a quota set on one instance on the other within seconds, and lift it when removed", async () => {
    const url = await serverDatabase()
    const a = await open(postgresStorage({ url }))
    const b = await open(postgresStorage({ url }))
    await defineFlags(a)
    expect(await flagsFor(b, "q")).toHaveProperty("pro")
    await api(a, "PATCH", "/api/organizations/@current/", { flag_evaluation_quota: 0 })
    // The instance that changed it applies it at once; the other on its next refresh.
    expect(await flagsFor(a, "q")).toEqual({})
    const changed = Date.now()
    while (Object.keys(await flagsFor(b, "q")).length > 0) {
      expect(Date.now() - changed).toBeLessThan(5_000)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await api(b, "PATCH", "/api/organizations/@current/", { flag_evaluation_quota: null })
    expect(await flagsFor(b, "q")).toHaveProperty("pro")
    const lifted = Date.now()
    while (Object.keys(await flagsFor(a, "q")).length === 0) {
      expect(Date.now() - lifted).toBeLessThan(5_000)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })
})

describe("the flag quota on the embedded store", () => {
  it("keeps the usage counted in memory across a restart", async () => {
    const dataDir = pgliteDir()
    const first = await createZed({
      storage: pgliteStorage({ dataDir }),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    await defineFlags(first)
    await api(first, "PATCH", "/api/organizations/@current/", { flag_evaluation_quota: 5 })
    for (let i = 0; i < 3; i++) expect(await flagsFor(first, `u${i}`)).toHaveProperty("pro")
    await first.close()
    const second = await open(pgliteStorage({ dataDir }))
    for (let i = 3; i < 5; i++) expect(await flagsFor(second, `u${i}`)).toHaveProperty("pro")
    expect(await flagsFor(second, "u5")).toEqual({})
  })
})

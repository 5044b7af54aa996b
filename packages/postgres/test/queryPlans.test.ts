import { describe, expect, it } from "@effect/vitest"
import { DEFAULT_LIMITS } from "@zed/core"
import { type InsightPlan, ProjectStore, type StorageServices } from "@zed/core/storage"
import { ingest } from "../../core/src/ingest/writer.js"
import { LifecycleLive } from "../../core/src/lifecycle/Lifecycle.js"
import { QueryRunner, QueryRunnerLive } from "../../core/src/queries/runner.js"
import { ZedConfig } from "../../core/src/services/ZedConfig.js"
import * as Q from "../../core/src/zedql/build.js"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { backends, incomingEvent, suiteStorage } from "./backends.js"

// An insight's plan through the query runner: its statements run in order on the store, their rows
// shaped, the answer cached under the node like any query, with the same refresh modes.

const EVENTS = [
  ...Array.from({ length: 5 }, (_, i) => incomingEvent("$pageview", `u${i % 3}`)),
  ...Array.from({ length: 2 }, (_, i) => incomingEvent("signed_up", `u${i}`))
]

const plan: InsightPlan = {
  queries: [
    Q.select`SELECT count() FROM events WHERE event = '$pageview'`,
    Q.select`SELECT distinct_id, count() FROM events WHERE event = 'signed_up' GROUP BY distinct_id ORDER BY distinct_id`
  ],
  shape: ([views, signups]) => ({ views: views![0]![0], signups: signups!.map(([id, n]) => `${id}:${n}`) }),
  zedql: "…"
}

describe.each(["pglite", "postgres", "chdb"])("%s insight plans", (name) => {
  let planned = 0
  const planning = Effect.sync(() => {
    planned++
    return plan
  })
  const suite = suiteStorage(backends("plans")[name]!)
  let runtime: ManagedRuntime.ManagedRuntime<QueryRunner | StorageServices, unknown> | undefined
  const runPlan = async (refresh: string, node = { kind: "TrendsQuery", series: [] }) => {
    if (runtime === undefined) {
      await suite.run(ingest([{ projectId: 1, events: EVENTS }]))
      const storage = Layer.succeedContext(await suite.run(Effect.context<StorageServices>()))
      runtime = ManagedRuntime.make(
        QueryRunnerLive.pipe(
          Layer.provideMerge(LifecycleLive),
          Layer.provideMerge(
            Layer.merge(storage, Layer.succeed(ZedConfig, { trustProxy: false, limits: DEFAULT_LIMITS }))
          )
        )
      )
    }
    return runtime.runPromise(
      Effect.gen(function* () {
        const project = Option.getOrThrow(yield* (yield* ProjectStore).get(1))
        return yield* (yield* QueryRunner).runPlan(project, {
          kind: node.kind,
          query: node,
          plan: planning,
          refresh: refresh as "blocking"
        })
      })
    )
  }

  it("runs the statements in order, shapes their rows, and caches the answer under the node, planning only to compute", async () => {
    const first = await runPlan("blocking")
    expect(first.state).toBe("complete")
    expect(first.body).toMatchObject({ results: { views: 5, signups: ["u0:1", "u1:1"] }, zedql: "…", is_cached: false })
    const again = await runPlan("blocking")
    expect(again.body).toMatchObject({
      results: first.body.results,
      is_cached: true,
      cache_key: first.body.cache_key,
      last_refresh: first.body.last_refresh
    })
    expect(planned).toBe(1)
    const forced = await runPlan("force_blocking")
    expect(forced.body.is_cached).toBe(false)
    expect(planned).toBe(2)
    const other = await runPlan("force_cache", { kind: "TrendsQuery", series: [{ kind: "EventsNode" }] } as never)
    expect(other.body).toEqual({ cache_key: expect.stringMatching(/^cache_/), query_status: null })
    expect(other.body.cache_key).not.toBe(first.body.cache_key)
    expect(planned).toBe(2)
    await runtime!.dispose()
  })
})

import { describe, expect, it } from "@effect/vitest"
import {
  FunctionLogStore,
  type LogEntry,
  type LogOwner,
  type LogQuery,
  LOG_SOURCES,
  LOG_TYPES,
  type NewFunction,
  PluginConfigStore,
  type PluginDefaults,
  ProjectStore,
  Transactor,
  uuidv7,
  ZedFunctionStore
} from "@zed/core/storage"
import { Effect, Option } from "effect"
import fc from "fast-check"
import { newFunction } from "../../core/test/support.js"
import { backends as storageBackends, suiteStorage } from "./backends.js"

// The zed function, plugin config and function log stores, alike on every backend.

const backends = storageBackends("functions")

const tick = () => new Promise((r) => setTimeout(r, 5))
const at = (ms: number) => new Date(Date.UTC(2024, 0, 1) + ms)

/** JSON values jsonb keeps as they are (no NUL characters, no -0, no odd keys). */
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000")),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(
      fc.string().filter((k) => !k.includes("\u0000") && k !== "__proto__"),
      tie("value"),
      { maxKeys: 3 }
    )
  )
})).value

const owners = (id: string): ReadonlyArray<LogOwner> => [
  { kind: "zed_function", id },
  { kind: "plugin_config", id }
]

describe.each(Object.keys(backends))("%s", (name) => {
  const suite = suiteStorage(backends[name]!)
  const { run } = suite
  const functions = () => run(ZedFunctionStore)
  const plugins = () => run(PluginConfigStore)
  const logs = () => run(FunctionLogStore)
  // A project of its own, so that one test's lists hold only its rows.
  const newProject = () =>
    run(
      Effect.gen(function* () {
        const projects = yield* ProjectStore
        const first = Option.getOrThrow(yield* projects.get(1))
        return (yield* projects.create({
          organization: first.organization,
          name: "Functions",
          timezone: "UTC",
          api_token: `phc_${uuidv7()}`
        })).id
      })
    )

  describe("zed functions", () => {
    it("assigns a transformation without an order the project's highest live transformation order plus one", async () => {
      const s = await functions()
      const p = await newProject()
      const order = async (f: NewFunction, projectId = p) => (await run(s.create(projectId, f))).execution_order
      expect(await order(newFunction("first"))).toBe(1)
      expect(await order(newFunction("second"))).toBe(2)
      // Deleted transformations and destinations do not count.
      expect(await order(newFunction("deleted", { deleted: true, execution_order: 10 }))).toBe(10)
      expect(await order(newFunction("destination", { type: "destination", execution_order: 20 }))).toBe(20)
      expect(await order(newFunction("third"))).toBe(3)
      expect(await order(newFunction("explicit", { execution_order: 7 }))).toBe(7)
      expect(await order(newFunction("after explicit"))).toBe(8)
      // A destination without an order keeps none.
      expect(await order(newFunction("unordered destination", { type: "destination" }))).toBeNull()
      // Another project counts from its own.
      expect(await order(newFunction("elsewhere"), await newProject())).toBe(1)
    })

    it("lists by execution order, nulls last, then by creation; deleted ones only when asked", async () => {
      const s = await functions()
      const p = await newProject()
      const names = ["a", "b", "c", "d", "e", "f", "g"]
      const made = await run(
        Effect.forEach(
          [
            newFunction("a", { type: "destination" }),
            newFunction("b", { execution_order: 2 }),
            newFunction("c"),
            newFunction("d", { type: "destination", execution_order: 1 }),
            newFunction("e", { type: "destination" }),
            newFunction("f", { execution_order: 2 }),
            newFunction("g", { execution_order: 0, deleted: true })
          ],
          (f) => s.create(p, f)
        )
      )
      expect(made.map((f) => f.name)).toEqual(names)
      expect(made[2]!.execution_order).toBe(3)
      expect((await run(s.list(p))).map((f) => f.name)).toEqual(["d", "b", "f", "c", "a", "e"])
      expect((await run(s.list(p, true))).map((f) => f.name)).toEqual(["g", "d", "b", "f", "c", "a", "e"])
      // Listed as created.
      expect(await run(s.list(p, true))).toEqual([made[6], made[3], made[1], made[5], made[2], made[0], made[4]])
      expect(await run(s.list(await newProject()))).toEqual([])
    })

    it("gets a function in its project only, a deleted one only when asked", async () => {
      const s = await functions()
      const p = await newProject()
      const live = await run(
        s.create(p, newFunction("live", { description: "d", template_id: "template-webhook", icon_url: "/icon.png" }))
      )
      const deleted = await run(s.create(p, newFunction("gone", { deleted: true })))
      expect(live.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(live.created_at).toBeInstanceOf(Date)
      expect(live.updated_at).toEqual(live.created_at)
      expect(Option.getOrThrow(await run(s.get(p, live.id)))).toEqual(live)
      expect(Option.getOrThrow(await run(s.get(p, live.id.toUpperCase())))).toEqual(live)
      expect(Option.isNone(await run(s.get(p, deleted.id)))).toBe(true)
      expect(Option.getOrThrow(await run(s.get(p, deleted.id, true)))).toEqual(deleted)
      expect(Option.isNone(await run(s.get(suite.other, live.id, true)))).toBe(true)
      expect(Option.isNone(await run(s.get(p, uuidv7())))).toBe(true)
      expect(Option.isNone(await run(s.get(p, "not-a-uuid")))).toBe(true)
    })

    it("keeps inputs, secrets, filters and code as given", async () => {
      const s = await functions()
      const p = await newProject()
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.string({ minLength: 1 }).filter((k) => !k.includes("\u0000") && k !== "__proto__"),
            json,
            { maxKeys: 3 }
          ),
          json,
          fc.string().filter((c) => !c.includes("\u0000")),
          async (values, filters, code) => {
            const inputs = Object.fromEntries(Object.entries(values).map(([k, value], order) => [k, { value, order }]))
            const secrets = Object.fromEntries(
              Object.entries(values).map(([k, value]) => [
                k,
                { value, templating: "hog" as const, bytecode: ["_H", 1, value] }
              ])
            )
            const created = await run(
              s.create(
                p,
                newFunction("round trip", {
                  inputs,
                  secrets,
                  filters,
                  code,
                  masking: { ttl: 60, hash: "{event}" },
                  mappings: [filters]
                })
              )
            )
            const got = Option.getOrThrow(await run(s.get(p, created.id)))
            expect(got).toEqual(created)
            expect(got).toMatchObject({
              inputs,
              secrets,
              filters,
              code,
              masking: { ttl: 60, hash: "{event}" },
              mappings: [filters]
            })
          }
        ),
        { numRuns: 25 }
      )
    })

    it("update changes only the given fields and moves updated_at", async () => {
      const s = await functions()
      const p = await newProject()
      const created = await run(
        s.create(p, newFunction("before", { inputs: { url: { value: "https://a.test" } }, filters: { events: [] } }))
      )
      await tick()
      const renamed = Option.getOrThrow(await run(s.update(p, created.id, { name: "after", enabled: undefined })))
      expect(renamed).toEqual({ ...created, name: "after", updated_at: renamed.updated_at })
      expect(renamed.updated_at.getTime()).toBeGreaterThan(created.updated_at.getTime())
      expect(Option.getOrThrow(await run(s.get(p, created.id)))).toEqual(renamed)

      await tick()
      const patch = {
        enabled: false,
        inputs: { url: { value: "https://b.test", templating: "liquid" as const } },
        secrets: { token: { value: "s3cr3t" } },
        filters: null,
        mappings: [{ name: "m", inputs: {} }],
        execution_order: 9,
        description: "changed"
      }
      const changed = Option.getOrThrow(await run(s.update(p, created.id, patch)))
      expect(changed).toEqual({ ...renamed, ...patch, updated_at: changed.updated_at })
      expect(changed.updated_at.getTime()).toBeGreaterThan(renamed.updated_at.getTime())

      // Even an empty patch touches the function; a deleted one can be restored.
      await tick()
      const touched = Option.getOrThrow(await run(s.update(p, created.id, {})))
      expect(touched.updated_at.getTime()).toBeGreaterThan(changed.updated_at.getTime())
      const deleted = Option.getOrThrow(await run(s.update(p, created.id, { deleted: true })))
      expect(Option.isNone(await run(s.get(p, created.id)))).toBe(true)
      expect(Option.getOrThrow(await run(s.update(p, created.id, { deleted: false })))).toMatchObject({
        ...touched,
        deleted: false,
        updated_at: expect.any(Date)
      })
      expect(deleted.deleted).toBe(true)

      // Not found elsewhere, and left alone.
      expect(Option.isNone(await run(s.update(suite.other, created.id, { name: "hijacked" })))).toBe(true)
      expect(Option.isNone(await run(s.update(p, uuidv7(), { name: "nobody" })))).toBe(true)
      expect(Option.isNone(await run(s.update(p, "not-a-uuid", { name: "nobody" })))).toBe(true)
      expect(Option.getOrThrow(await run(s.get(p, created.id))).name).toBe("after")
    })

    it("a create or update in a failed transaction leaves nothing behind", async () => {
      const s = await functions()
      const p = await newProject()
      const kept = await run(s.create(p, newFunction("kept")))
      const failed = await suite.runExit(
        Effect.flatMap(Transactor, (t) =>
          t.transaction(
            Effect.gen(function* () {
              yield* s.create(p, newFunction("rolled back"))
              yield* s.update(p, kept.id, { name: "renamed", deleted: true })
              return yield* Effect.fail("boom")
            })
          )
        )
      )
      expect(failed._tag).toBe("Failure")
      expect(await run(s.list(p, true))).toEqual([kept])
      // The rolled-back transformation took no order.
      expect((await run(s.create(p, newFunction("next")))).execution_order).toBe(2)
    })
  })

  describe("plugin configs", () => {
    const defaults: ReadonlyArray<PluginDefaults> = [
      { plugin_id: 3, enabled: false, order: 2, config: { mode: "strict", fields: ["$ip"] } },
      { plugin_id: 1, enabled: true, order: 3, config: {} },
      { plugin_id: 2, enabled: true, order: 1, config: { nested: { a: 1 } } }
    ]

    it("creates each plugin's defaults once, and lists by order", async () => {
      const s = await plugins()
      const p = await newProject()
      const first = await run(s.list(p, defaults))
      expect(first.map(({ plugin_id, enabled, order, config }) => ({ plugin_id, enabled, order, config }))).toEqual([
        defaults[2],
        defaults[0],
        defaults[1]
      ])
      expect(first.every((c) => c.created_at instanceof Date && c.updated_at instanceof Date)).toBe(true)
      expect(new Set(first.map((c) => c.id)).size).toBe(3)
      expect(await run(s.list(p, defaults))).toEqual(first)
      expect(await run(s.list(p, []))).toEqual(first)

      // A plugin added later gets its row; the others keep theirs.
      const more = await run(s.list(p, [...defaults, { plugin_id: 4, enabled: true, order: 0, config: { x: true } }]))
      expect(more.map((c) => c.plugin_id)).toEqual([4, 2, 3, 1])
      expect(more.slice(1)).toEqual(first)

      // Another project has rows of its own.
      const other = await run(s.list(await newProject(), defaults))
      expect(other.map((c) => c.plugin_id)).toEqual([2, 3, 1])
      expect(other.some((c) => first.some((f) => f.id === c.id))).toBe(false)
    })

    it("concurrent first reads create one row per plugin", async () => {
      const s = await plugins()
      const p = await newProject()
      const lists = await run(
        Effect.all(
          Array.from({ length: 6 }, () => s.list(p, defaults)),
          { concurrency: "unbounded" }
        )
      )
      for (const list of lists) expect(list).toEqual(lists[0])
      expect(lists[0]!.map((c) => c.plugin_id)).toEqual([2, 3, 1])
    })

    it("update changes the given fields and moves updated_at, in the config's project only", async () => {
      const s = await plugins()
      const p = await newProject()
      const [, target] = await run(s.list(p, defaults))
      await tick()
      const enabled = Option.getOrThrow(await run(s.update(p, target!.id, { enabled: true })))
      expect(enabled).toEqual({ ...target, enabled: true, updated_at: enabled.updated_at })
      expect(enabled.updated_at.getTime()).toBeGreaterThan(target!.updated_at.getTime())
      const configured = Option.getOrThrow(
        await run(s.update(p, target!.id, { config: { mode: "loose" }, enabled: undefined }))
      )
      expect(configured).toEqual({ ...enabled, config: { mode: "loose" }, updated_at: configured.updated_at })

      // Defaults do not overwrite what was changed.
      expect((await run(s.list(p, defaults)))[1]).toEqual(configured)
      expect(Option.isNone(await run(s.update(suite.other, target!.id, { enabled: false })))).toBe(true)
      expect(Option.isNone(await run(s.update(p, 999_999, { enabled: false })))).toBe(true)
      expect((await run(s.list(p, defaults)))[1]).toEqual(configured)
    })
  })

  describe("function logs", () => {
    const entry = (owner: LogOwner, fields: Partial<LogEntry> = {}, projectId = 1): LogEntry => ({
      id: uuidv7(),
      project_id: projectId,
      owner,
      plugin_id: owner.kind === "plugin_config" ? 7 : null,
      timestamp: at(0),
      source: "CONSOLE",
      type: "INFO",
      message: "hello",
      instance_id: uuidv7(),
      ...fields
    })
    const all: LogQuery = { types: [], limit: 100, offset: 0 }

    it("lists an owner's entries newest first, ties last-written first, and no one else's", async () => {
      const s = await logs()
      const [fnOwner, pluginOwner] = owners(uuidv7())
      const e = (message: string, ms: number, owner = fnOwner!) => entry(owner, { message, timestamp: at(ms) })
      await run(s.append([e("old", 0), e("tie 1", 10), e("tie 2", 10)]))
      await run(
        s.append([
          e("tie 3", 10),
          e("new", 20),
          e("plugin's", 30, pluginOwner),
          entry(fnOwner!, { timestamp: at(40) }, suite.other)
        ])
      )
      await run(s.append([]))
      const listed = await run(s.list(1, fnOwner!, all))
      expect(listed.count).toBe(5)
      expect(listed.results.map((r) => r.message)).toEqual(["new", "tie 3", "tie 2", "tie 1", "old"])
      const plugin = await run(s.list(1, pluginOwner!, all))
      expect(plugin.results).toEqual([
        expect.objectContaining({ message: "plugin's", owner: pluginOwner, plugin_id: 7 })
      ])
      expect((await run(s.list(suite.other, fnOwner!, all))).count).toBe(1)
      expect(await run(s.list(1, { kind: "zed_function", id: uuidv7() }, all))).toEqual({ count: 0, results: [] })
    })

    it("keeps every field of an entry", async () => {
      const s = await logs()
      const [fnOwner, pluginOwner] = owners("42")
      const written = [
        entry(fnOwner!, {
          source: "SYSTEM",
          type: "ERROR",
          message: "Ünïcode ✓ 'quoted' \\ \"x\"",
          timestamp: new Date(Date.UTC(2024, 5, 1, 12, 0, 0, 123))
        }),
        entry(pluginOwner!, { source: "PLUGIN", type: "DEBUG", plugin_id: 12, message: "" })
      ]
      await run(s.append(written))
      expect((await run(s.list(1, fnOwner!, all))).results).toEqual([written[0]])
      expect((await run(s.list(1, pluginOwner!, all))).results).toEqual([written[1]])
    })

    it("searches messages without case, taking % and _ literally", async () => {
      const s = await logs()
      const [owner] = owners(uuidv7())
      await run(
        s.append(
          ["Done 100%", "done 100 times", "a_b", "axb", "Back\\slash", "ERROR here"].map((message, i) =>
            entry(owner!, { message, timestamp: at(i) })
          )
        )
      )
      const search = async (text: string) =>
        (await run(s.list(1, owner!, { ...all, search: text }))).results.map((r) => r.message)
      expect(await search("%")).toEqual(["Done 100%"])
      expect(await search("100%")).toEqual(["Done 100%"])
      expect(await search("_")).toEqual(["a_b"])
      expect(await search("a_b")).toEqual(["a_b"])
      expect(await search("\\s")).toEqual(["Back\\slash"])
      expect(await search("error")).toEqual(["ERROR here"])
      expect(await search("DONE")).toEqual(["done 100 times", "Done 100%"])
      expect(await search("")).toHaveLength(6)
    })

    it("every filter, alone or together, with paging, matches a plain reading of the query", async () => {
      const s = await logs()
      const message = fc.string({ unit: fc.constantFrom("a", "A", "b", "%", "_", "\\", " "), maxLength: 6 })
      const written = fc.array(
        fc.record({
          ms: fc.integer({ min: 0, max: 5 }),
          type: fc.constantFrom(...LOG_TYPES),
          source: fc.constantFrom(...LOG_SOURCES),
          message
        }),
        { maxLength: 12 }
      )
      const query = fc.record({
        types: fc.uniqueArray(fc.constantFrom(...LOG_TYPES), { maxLength: 3 }),
        search: fc.option(fc.string({ unit: fc.constantFrom("a", "B", "%", "_", "\\"), maxLength: 2 }), {
          nil: undefined
        }),
        after: fc.option(fc.integer({ min: -1, max: 6 }).map(at), { nil: undefined }),
        before: fc.option(fc.integer({ min: -1, max: 6 }).map(at), { nil: undefined }),
        limit: fc.integer({ min: 0, max: 6 }),
        offset: fc.integer({ min: 0, max: 6 })
      })
      await fc.assert(
        fc.asyncProperty(
          written,
          fc.integer({ min: 1, max: 3 }),
          fc.array(query, { minLength: 1, maxLength: 4 }),
          async (rows, batches, queries) => {
            const [owner, sameIdOtherKind] = owners(uuidv7())
            const entries = rows.map(({ ms, ...fields }) => entry(owner!, { ...fields, timestamp: at(ms) }))
            // Written in a few appends, with the same entries under a look-alike owner and another project.
            const size = Math.ceil(entries.length / batches)
            for (let i = 0; i < entries.length; i += size) await run(s.append(entries.slice(i, i + size)))
            await run(
              s.append(
                entries.flatMap((e) => [
                  { ...e, owner: sameIdOtherKind! },
                  { ...e, project_id: suite.other }
                ])
              )
            )
            for (const q of queries) {
              const expected = entries
                .map((e, written) => ({ e, written }))
                .filter(
                  ({ e }) =>
                    (q.types.length === 0 || q.types.includes(e.type)) &&
                    (q.search === undefined || e.message.toLowerCase().includes(q.search.toLowerCase())) &&
                    (q.after === undefined || e.timestamp > q.after) &&
                    (q.before === undefined || e.timestamp < q.before)
                )
                .sort((x, y) => y.e.timestamp.getTime() - x.e.timestamp.getTime() || y.written - x.written)
                .map(({ e }) => e)
              expect(await run(s.list(1, owner!, q))).toEqual({
                count: expected.length,
                results: expected.slice(q.offset, q.offset + q.limit)
              })
            }
          }
        ),
        { numRuns: 30 }
      )
    })
  })
})

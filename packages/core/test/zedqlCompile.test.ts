import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { approximateBytes } from "../src/cache/bounded.js"
import { compileZedQL, type CompiledZedQL, QUERY_MAX_LIMIT, type ZedQLError } from "../src/domain.js"
import { CACHED_PARSES, makeParseCache, parseSelect } from "../src/zedql/parse.js"

// The compiler alone, without a database: what it refuses (and where), and what the SQL it prints
// can and cannot contain. Results are checked against real databases in @zed/postgres's tests.

const PROJECT = 7
const compile = (text: string, timezone = "UTC") =>
  Effect.runPromise(compileZedQL(text, { projectId: PROJECT, timezone }))
const refusal = (text: string) =>
  Effect.runPromise(Effect.flip(compileZedQL(text, { projectId: PROJECT, timezone: "UTC" }))) as Promise<ZedQLError>

/** Every physical table the SQL reads, and whether each read is limited to the project. */
const tableReads = (compiled: CompiledZedQL) =>
  [
    ...compiled.sql.matchAll(
      /FROM "(events|persons|person_distinct_ids|groups)"( WHERE "project_id" = \$(\d+)::int4)?/g
    )
  ].map((m) => ({
    table: m[1],
    guarded: m[3] !== undefined && compiled.params[Number(m[3]) - 1] === PROJECT
  }))

describe("ZedQL errors", () => {
  it("reports syntax errors with the parser's message and position", async () => {
    const error = await refusal("select 1 +")
    expect(error).toMatchObject({ _tag: "ZedQLSyntaxError", message: "no viable alternative at input 'select 1 +'" })
    expect(error.span?.start).toBe(10)
  })

  it("names unknown tables, fields and functions, where they are", async () => {
    const text = "SELECT event FROM events WHERE nope = 1"
    expect(await refusal(text)).toMatchObject({
      _tag: "ZedQLQueryError",
      message: "Unable to resolve field: nope",
      span: { start: text.indexOf("nope"), end: text.indexOf("nope") + 4 }
    })
    expect(await refusal("SELECT 1 FROM pg_catalog.pg_tables")).toMatchObject({
      message: "Unknown table `pg_catalog.pg_tables`."
    })
    expect(await refusal("SELECT * FROM person")).toMatchObject({ message: "Unknown table `person`." })
    const call = "SELECT toStartOfDya(timestamp) FROM events"
    expect(await refusal(call)).toMatchObject({
      message: "Unsupported function call 'toStartOfDya(...)'. Perhaps you meant 'toStartOfDay(...)'?",
      span: { start: 7 }
    })
    for (const forbidden of [
      "pg_sleep(10)",
      "version()",
      "current_setting('x')",
      "dblink('x')",
      "lo_import('/etc/passwd')",
      "set_config('a', 'b', false)"
    ]) {
      expect(await refusal(`SELECT ${forbidden}`)).toMatchObject({
        _tag: "ZedQLQueryError",
        message: expect.stringContaining("Unsupported function call")
      })
    }
  })

  it("checks arity, nesting and where aggregations may go", async () => {
    expect(await refusal("SELECT toStartOfDay()")).toMatchObject({
      message: "Function 'toStartOfDay' expects 1 argument, found 0"
    })
    expect(await refusal("SELECT count(sum(1)) FROM events")).toMatchObject({
      message: "Aggregation 'sum' cannot be nested inside another aggregation 'count'"
    })
    expect(await refusal("SELECT 1 FROM events WHERE count() > 1")).toMatchObject({
      message: expect.stringContaining("is not allowed here")
    })
    expect(await refusal("SELECT row_number() FROM events")).toMatchObject({
      message: "row_number() needs an OVER clause"
    })
  })

  it("refuses what users may not write: SETTINGS, team_id as a name, internal tables, other projects' ids", async () => {
    expect(await refusal("SELECT 1 SETTINGS max_execution_time = 1000")).toMatchObject({
      _tag: "ZedQLSyntaxError",
      message: "SETTINGS is not allowed in ZedQL"
    })
    expect(await refusal("SELECT 1 AS team_id")).toMatchObject({ _tag: "ZedQLSyntaxError" })
    expect(await refusal("SELECT * FROM _person_distinct_ids")).toMatchObject({
      message: "Unknown table `_person_distinct_ids`."
    })
    expect(await refusal("SELECT _id FROM persons")).toMatchObject({
      message: expect.stringContaining("Unable to resolve field: _id")
    })
  })
})

describe("the SQL ZedQL prints", () => {
  const shapes = [
    "SELECT count() FROM events",
    "SELECT e.event, p.properties.email FROM events e JOIN persons p ON e.person_id = p.id",
    "SELECT person.properties.email, session.$session_duration, pdi.distinct_id, group_0.properties.name FROM events",
    "WITH x AS (SELECT distinct_id FROM events) SELECT count() FROM x JOIN persons ON 1 = 1",
    "SELECT (SELECT count() FROM persons), event FROM events WHERE distinct_id IN (SELECT distinct_id FROM person_distinct_ids)",
    "SELECT event FROM events UNION ALL SELECT key FROM groups UNION ALL SELECT session_id FROM sessions",
    "SELECT a FROM (SELECT event AS a FROM (SELECT * FROM events) AS inner_events) AS outer_events RIGHT JOIN persons ON 1 = 1"
  ]

  it("reads every table only through the caller's project", async () => {
    for (const text of shapes) {
      const reads = tableReads(await compile(text))
      expect(reads.length, text).toBeGreaterThan(0)
      expect(
        reads.every((r) => r.guarded),
        text
      ).toBe(true)
      // Nothing reaches a table any other way.
      expect((await compile(text)).sql.match(/"(events|persons|person_distinct_ids|groups)"/g)!.length, text).toBe(
        reads.length
      )
    }
  })

  it("never writes user text into the statement: literals and keys are parameters", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0),
        async (text) => {
          const literal = `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
          const compiled = await compile(
            `SELECT properties[${literal}], count() FROM events WHERE event = ${literal} OR distinct_id LIKE ${literal} GROUP BY 1`
          )
          expect(compiled.params).toContain(text)
          // The text may only appear inside parameters (short texts also appear in SQL by chance: "t", "AS"…).
          if (text.length >= 8) expect(compiled.sql.includes(text)).toBe(false)
        }
      ),
      { numRuns: 150 }
    )
  })

  it("quotes every alias, so any name is safe", async () => {
    const compiled = await compile('SELECT event AS `a"; DROP TABLE events; --` FROM events AS `x"y`')
    expect(compiled.columns.map((c) => c.name)).toEqual(['a"; DROP TABLE events; --'])
    expect(compiled.sql).not.toContain('DROP TABLE events; --" ')
    expect(tableReads(compiled).every((r) => r.guarded)).toBe(true)
  })

  it("pages a query without a LIMIT, and caps one with a large LIMIT", async () => {
    const paged = await compile("SELECT event FROM events")
    expect(paged.page).toEqual({ limit: 100, offset: 0 })
    expect(paged.params).toContain(101)
    expect(paged.zedql).toBe("SELECT event FROM events LIMIT 100")
    const capped = await compile("SELECT event FROM events LIMIT 1000000")
    expect(capped.page).toBeNull()
    expect(capped.params).toContain(QUERY_MAX_LIMIT)
    expect(capped.params).not.toContain(1000000)
  })

  it("reports column names and types as PostHog names them", async () => {
    const compiled = await compile(
      "SELECT event, properties.$browser AS browser, count(), toStartOfDay(timestamp), uniq(person_id) AS people FROM events GROUP BY 1, 2, 4",
      "Europe/Paris"
    )
    expect(compiled.columns.map((c) => c.name)).toEqual([
      "event",
      "browser",
      "count()",
      "toStartOfDay(timestamp)",
      "people"
    ])
    expect(compiled.columns.map((c) => [c.type.kind, c.type.nullable])).toEqual([
      ["String", false],
      ["String", true],
      ["Int", false],
      ["DateTime", false],
      ["Int", false]
    ])
  })

  it("reads count(*) as count(), also over a window", async () => {
    const star = await compile("SELECT count(*), count(*) OVER () FROM events")
    const bare = await compile("SELECT count(), count() OVER () FROM events")
    expect(star.sql).toBe(bare.sql)
    expect((await compile(star.zedql)).sql).toBe(bare.sql)
  })

  it("writes a normalized query that means the same when run again, whatever the names", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12 }), async (name) => {
        const quoted = `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "``")}\``
        const first = await compile(`SELECT event AS ${quoted}, count(*) FROM events GROUP BY ${quoted}`)
        expect(first.columns[0]!.name).toBe(name)
        const again = await compile(first.zedql)
        expect(again.zedql).toBe(first.zedql)
        expect(again.sql).toBe(first.sql)
      }),
      { numRuns: 60 }
    )
  })

  it("normalizes the query it ran, operators as functions", async () => {
    const compiled = await compile(
      "select event, count() from events where event = '$pageview' and timestamp > now() - interval 7 day group by event limit 10"
    )
    expect(compiled.zedql).toBe(
      "SELECT event, count() FROM events WHERE and(equals(event, '$pageview'), greater(timestamp, minus(now(), toIntervalDay(7)))) GROUP BY event LIMIT 10"
    )
  })
})

describe("ZedQL parsing", () => {
  it("keeps the parses of recent texts, and forgets the least recently used", async () => {
    const parse = (text: string) => Effect.runPromise(parseSelect(text))
    const text = "SELECT session.$session_duration, count() FROM events GROUP BY 1"
    const first = await parse(text)
    expect(await parse(text)).toBe(first)
    expect(await parse(`${text} `)).not.toBe(first)
    expect((await compile(text)).sql).toBe((await compile(text)).sql)
    for (let i = 0; i < CACHED_PARSES; i++) await parse(`SELECT ${i}`)
    const again = await parse(text)
    expect(again).not.toBe(first)
    expect(again).toEqual(first)
  })

  it("keeps parses within its bytes: large trees push out the least recently used", async () => {
    const texts = Array.from(
      { length: 8 },
      (_, i) => `SELECT ${Array.from({ length: 5 + i * 5 }, (_, j) => `properties.p${j}`).join(", ")} FROM events`
    )
    const asts = await Promise.all(texts.map((text) => Effect.runPromise(parseSelect(text))))
    const trees = asts.map((ast) => Either.right(ast))
    const bytes = approximateBytes(asts[7]) * 2
    const cache = makeParseCache({ texts: 20_000, entries: 100, bytes })
    for (const [i, text] of texts.entries()) {
      cache.keep(text, trees[i]!)
      expect(cache.kept(text)).toBe(trees[i])
      expect(cache.bytes()).toBeLessThanOrEqual(bytes)
    }
    expect(cache.kept(texts[0]!)).toBeUndefined()
    expect(cache.size()).toBeLessThan(texts.length)
  })
})

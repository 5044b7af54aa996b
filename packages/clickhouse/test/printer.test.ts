import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  clickhouse,
  CLICKHOUSE_QUERY_SETTINGS,
  compileZedQL,
  type CompiledZedQL,
  type Dialect,
  postgres
} from "@zed/core/domain"
import { Effect } from "effect"
import fc from "fast-check"
import { SIGNATURES } from "../../core/src/zedql/functions.js"
import { jsonRows } from "../../core/src/zedql/results.js"
import { settingsClause } from "../src/ClickHouse.js"
import { schemaStatements } from "../src/schema.js"

// The ClickHouse dialect on chDB, held to the Postgres dialect on PGlite: each function, literal and
// name must print SQL that ClickHouse accepts and gives the same results; tables are read only for
// the caller's project, versioned ones at each row's latest version.

const PROJECT = 7
const TIME_ZONE = "America/New_York"

type Session = InstanceType<typeof import("chdb")["Session"]>
let dir: string
let session: Session
let pg: PGlite

const compile = (text: string, dialect: Dialect) =>
  Effect.runPromise(compileZedQL(text, { projectId: PROJECT, timezone: TIME_ZONE, dialect }))

const onClickHouse = async (compiled: CompiledZedQL) => {
  const settings = settingsClause({ ...CLICKHOUSE_QUERY_SETTINGS, session_timezone: TIME_ZONE, readonly: 2 })
  const params = Object.fromEntries(compiled.params.map((value, i) => [`p${i}`, value]))
  const result = await session.queryBindAsync(`${compiled.sql}${settings}`, params, { format: "JSONCompact" })
  const body = JSON.parse(result.text()) as { data: Array<Array<unknown>> }
  return jsonRows(
    body.data,
    compiled.columns.map((c) => c.type)
  )
}

const onPostgres = async (compiled: CompiledZedQL) => {
  const result = await pg.query<Array<unknown>>(compiled.sql, [...compiled.params], { rowMode: "array" })
  return jsonRows(
    result.rows,
    compiled.columns.map((c) => c.type)
  )
}

const run = async (text: string) => onClickHouse(await compile(text, clickhouse))

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "zed-printer-"))
  session = new (await import("chdb")).Session(join(dir, "chdb"))
  for (const statement of schemaStatements(undefined)) await session.queryAsync(statement)
  const insert = (sql: string) => session.queryAsync(sql)
  await insert(`INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp, created_at) VALUES
    (7, generateUUIDv4(), 'a', 'u1', '00000000-0000-0000-0000-000000000001', '{"n": 1, "s": "x\\\\"y", "b": true}', '2026-03-08 06:30:00', now64()),
    (7, generateUUIDv4(), 'b', 'u2', '00000000-0000-0000-0000-000000000002', '{"n": 2.5}', '2026-03-08 07:30:00', now64()),
    (8, generateUUIDv4(), 'secret', 'u3', '00000000-0000-0000-0000-000000000003', '{}', '2026-03-08 07:30:00', now64())`)
  await insert(`INSERT INTO persons (project_id, id, uuid, properties, is_identified, created_at, version, is_deleted) VALUES
    (7, 1, '00000000-0000-0000-0000-000000000001', '{"email": "old@x"}', false, '2026-03-01 00:00:00', 1, 0),
    (7, 1, '00000000-0000-0000-0000-000000000001', '{"email": "new@x"}', true, '2026-03-01 00:00:00', 2, 0),
    (7, 2, '00000000-0000-0000-0000-000000000002', '{"email": "gone@x"}', true, '2026-03-01 00:00:00', 1, 0),
    (7, 2, '00000000-0000-0000-0000-000000000002', '{"email": "gone@x"}', true, '2026-03-01 00:00:00', 2, 1),
    (8, 3, '00000000-0000-0000-0000-000000000003', '{"email": "other@x"}', true, '2026-03-01 00:00:00', 1, 0)`)
  pg = new PGlite()
  await pg.query(`SET TIME ZONE '${TIME_ZONE}'`)
}, 120_000)

afterAll(async () => {
  session?.close()
  await pg?.close()
  rmSync(dir, { recursive: true, force: true })
})

const DT = "toDateTime('2026-03-08 10:30:15.25')"
const D = "toDate('2026-03-08')"
const S = "'Hello, World'"
const URL = "'https://app.example.com:8080/docs/a?utm_source=tw&x=1#top'"
const J = '\'{"a": {"b": [1, 2, 3]}, "s": "text", "n": 4.5, "t": true}\''
const ARR = "[3, 1, 2, 3]"

/** One call of every function, on constants. `[name, expression]`; volatile ones are only run. */
const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ["toString", "toString(1.5)"],
  ["toString", `toString(${DT})`],
  ["toInt", "toInt(' 42 ')"],
  ["toInt", "toInt('4x')"],
  ["toFloat", "toFloat('1e3')"],
  ["toDecimal", "toDecimal('2.5')"],
  ["toUUID", "toUUID('00000000-0000-0000-0000-00000000000a')"],
  ["toBool", "toBool('TRUE')"],
  ["toDate", "toDate('2026-03-08 23:00:00')"],
  ["toDate", `toDate(${DT}, 'Asia/Tokyo')`],
  ["toDateTime", "toDateTime('2026-03-08T10:00:00Z')"],
  ["toDateTime", "toDateTime('nope')"],
  ["parseDateTimeBestEffort", "parseDateTimeBestEffort('2026-03-08 01:02:03')"],
  ["toTimeZone", `toTimeZone(${DT}, 'UTC')`],
  ["toJSONString", "toJSONString('a\"b')"],
  ["toIntOrZero", "toIntOrZero('x')"],
  ["toFloatOrZero", "toFloatOrZero('2.5')"],
  ["toFloatOrDefault", "toFloatOrDefault('x', 7)"],
  ["toTypeName", "toTypeName(1)"],
  ["now", "now()"],
  ["today", "today()"],
  ["yesterday", "yesterday()"],
  ...[
    "toYear",
    "toQuarter",
    "toMonth",
    "toDayOfMonth",
    "toDayOfWeek",
    "toDayOfYear",
    "toHour",
    "toMinute",
    "toSecond",
    "toISOWeek",
    "toISOYear",
    "toYYYYMM",
    "toYYYYMMDD"
  ].map((name) => [name, `${name}(${DT})`] as const),
  ...[
    "toStartOfMinute",
    "toStartOfFiveMinutes",
    "toStartOfTenMinutes",
    "toStartOfFifteenMinutes",
    "toStartOfHour",
    "toStartOfDay",
    "toMonday",
    "toStartOfMonth",
    "toStartOfQuarter",
    "toStartOfYear",
    "toStartOfISOYear"
  ].map((name) => [name, `${name}(${DT})`] as const),
  ["toStartOfWeek", `toStartOfWeek(${DT})`],
  ["toStartOfWeek", `toStartOfWeek(${D}, 1)`],
  ["toStartOfInterval", `toStartOfInterval(${DT}, INTERVAL 15 minute)`],
  ["dateTrunc", `dateTrunc('month', ${DT})`],
  ["dateTrunc", `dateTrunc('hour', ${DT})`],
  ["dateDiff", `dateDiff('day', toDateTime('2026-03-07 23:00:00'), ${DT})`],
  ["dateDiff", `dateDiff('week', toDate('2026-03-07'), ${D})`],
  ["dateAdd", `dateAdd('month', 1, toDate('2026-01-31'))`],
  ["dateSub", `dateSub('hour', 3, ${DT})`],
  ...["Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"].flatMap((u) => [
    [`add${u}s`, `add${u}s(${DT}, 2)`] as const,
    // Postgres' date minus hours is a timestamp without a zone: shifts by less than a day start from a date-time.
    [`subtract${u}s`, `subtract${u}s(${["Second", "Minute", "Hour"].includes(u) ? DT : D}, 1)`] as const,
    [`toInterval${u}`, `${DT} + toInterval${u}(1)`] as const
  ]),
  ["toUnixTimestamp", `toUnixTimestamp(${DT})`],
  ["fromUnixTimestamp", "fromUnixTimestamp(1700000000)"],
  ["formatDateTime", `formatDateTime(${DT}, '%Y-%m-%d %H:%i:%S %e %A %B %z %%')`],
  ["length", `length('héllo')`],
  ["length", `length(${ARR})`],
  ["empty", "empty('')"],
  ["notEmpty", "notEmpty([1])"],
  ["lower", `lower(${S})`],
  ["upper", `upper(${S})`],
  ["lowerUTF8", "lowerUTF8('ÉCOLE')"],
  ["upperUTF8", "upperUTF8('école')"],
  ["concat", "concat('a', 1, NULL)"],
  ["concat", "concat('a', 1, true)"],
  ["substring", "substring('héllo', 2, 3)"],
  ["left", "left('héllo', 2)"],
  ["right", "right('héllo', 2)"],
  ["trim", "trim('  a  ')"],
  ["trimLeft", "trimLeft('  a  ')"],
  ["trimRight", "trimRight('  a  ')"],
  ["reverse", "reverse('héllo')"],
  ["repeat", "repeat('ab', 3)"],
  ["leftPad", "leftPad('7', 3, '0')"],
  ["rightPad", "rightPad('7', 3)"],
  ["position", "position('héllo', 'l')"],
  ["positionCaseInsensitive", "positionCaseInsensitive('Hello', 'LL')"],
  ["startsWith", `startsWith(${S}, 'Hell')`],
  ["endsWith", `endsWith(${S}, 'World')`],
  ["replaceAll", "replaceAll('a.b.c', '.', '-')"],
  ["replaceOne", "replaceOne('a.b.c', '.', '-')"],
  ["replaceRegexpAll", "replaceRegexpAll('a1b22', '[0-9]+', '#')"],
  ["replaceRegexpOne", "replaceRegexpOne('a1b22', '[0-9]+', '#')"],
  ["match", "match('abc', '^a.c$')"],
  ["extract", "extract('id=42', 'id=([0-9]+)')"],
  ["extract", "extract('none', 'id=([0-9]+)')"],
  ["like", "like('abc', 'a%')"],
  ["ilike", "ilike('ABC', 'a%')"],
  ["notLike", "notLike('abc', 'a%')"],
  ["notILike", "notILike('ABC', 'b%')"],
  ["splitByChar", "splitByChar('/', '/docs/a')"],
  ["splitByChar", "splitByChar('/', '')"],
  ["splitByString", "splitByString('::', 'a::b')"],
  ["base64Encode", "base64Encode('héllo')"],
  ["base64Decode", "base64Decode('aMOpbGxv')"],
  ["domain", `domain(${URL})`],
  ["domain", "domain('$direct')"],
  ["path", `path(${URL})`],
  ["protocol", `protocol(${URL})`],
  ["extractURLParameter", `extractURLParameter(${URL}, 'utm_source')`],
  ["cutQueryString", `cutQueryString(${URL})`],
  ["if", "if(NULL, 'yes', 'no')"],
  ["multiIf", "multiIf(1 > 2, 'a', 2 > 1, 'b', 'c')"],
  ["coalesce", "coalesce(NULL, 'x')"],
  ["ifNull", "ifNull(NULL, 2)"],
  ["nullIf", "nullIf('a', 'a')"],
  ["isNull", "isNull(NULL)"],
  ["isNotNull", "isNotNull(1)"],
  ["assumeNotNull", "assumeNotNull(1)"],
  ["greatest", "greatest(1, 3, 2)"],
  ["least", "least(1.5, 3, 2)"],
  ["equals", "equals(1, 1)"],
  ["notEquals", "notEquals('a', 'b')"],
  ["less", "less(1, 2)"],
  ["greater", "greater(1, 2)"],
  ["lessOrEquals", "lessOrEquals(2, 2)"],
  ["greaterOrEquals", "greaterOrEquals(1, 2)"],
  ["and", "and(1 = 1, 2 = 2)"],
  ["or", "or(1 = 2, 2 = 2)"],
  ["not", "not(1 = 2)"],
  ["in", "in(2, (1, 2))"],
  ["notIn", "notIn(2, (1, 2))"],
  ["plus", "plus(1, 2)"],
  ["minus", "minus(5, 7.5)"],
  ["multiply", "multiply(2, 2.5)"],
  ["divide", "divide(7, 2)"],
  ["divide", "divide(7, 0)"],
  ["intDiv", "intDiv(-7, 2)"],
  ["intDiv", "intDiv(7, 0)"],
  ["modulo", "modulo(-7, 3)"],
  ["modulo", "modulo(7.5, 0)"],
  ["negate", "negate(3)"],
  ["abs", "abs(-3.5)"],
  ["sign", "sign(-3.5)"],
  ["round", "round(2.5)"],
  ["round", "round(3.14159, 2)"],
  ["floor", "floor(-2.5)"],
  ["ceil", "ceil(2.1)"],
  ["sqrt", "sqrt(16)"],
  ["exp", "exp(0)"],
  ["log", "log(1)"],
  ["log2", "log2(8)"],
  ["log10", "log10(1000)"],
  ["pow", "pow(2, 10)"],
  ["pi", "pi()"],
  ["array", "array(1, 2, NULL)"],
  ["array", `array(${DT}, NULL)`],
  ["array", `array(${D})`],
  ["array", "array(toUUID('00000000-0000-0000-0000-00000000000a'))"],
  // (Date-times inside tuples differ: Postgres' jsonb writes them in its own way.)
  ["tuple", "tuple(1.5, NULL, [1, 2])"],
  ["tuple", "tuple(1, 'a')"],
  ["tupleElement", "tupleElement(tuple(1, 'a'), 2)"],
  ["arrayJoin", `arrayJoin(${ARR})`],
  ["has", `has(${ARR}, 2)`],
  ["hasAny", `hasAny(${ARR}, [5, 1])`],
  ["hasAll", `hasAll(${ARR}, [5, 1])`],
  ["indexOf", `indexOf(${ARR}, 2)`],
  ["arrayElement", `arrayElement(${ARR}, -1)`],
  ["arrayElement", `${ARR}[9]`],
  ["arraySlice", `arraySlice(${ARR}, 2, 2)`],
  ["arrayConcat", `arrayConcat(${ARR}, [9])`],
  ["arrayDistinct", `arrayDistinct(${ARR})`],
  ["arraySort", `arraySort(${ARR})`],
  ["arrayReverse", `arrayReverse(${ARR})`],
  ["arraySum", `arraySum(${ARR})`],
  ["arrayMin", `arrayMin(${ARR})`],
  ["arrayMax", "arrayMax(array())"],
  ["arrayStringConcat", "arrayStringConcat(['a', 'b'], '-')"],
  ["arrayMap", `arrayMap(x -> x * 2, ${ARR})`],
  ["arrayFilter", `arrayFilter(x -> x > 1, ${ARR})`],
  ["arrayExists", `arrayExists(x -> x > 2, ${ARR})`],
  ["arrayAll", `arrayAll(x -> x > 2, ${ARR})`],
  ["arrayCount", `arrayCount(x -> x = 3, ${ARR})`],
  ["arrayCount", "arrayCount([0, 1, 2])"],
  // Lambdas over arrays side by side, nested ones reading their enclosing one's parameter, and shadowing.
  ["arrayMap", `arrayMap((x, y) -> x * 10 + y, ${ARR}, arrayReverse(${ARR}))`],
  ["arrayFilter", `arrayFilter((x, y) -> y > 2, ${ARR}, arrayMap(x -> x * 2, ${ARR}))`],
  ["arrayExists", `arrayExists((x, y) -> x = y, ${ARR}, arrayReverse(${ARR}))`],
  ["arrayAll", `arrayAll((x, y) -> x <= y, ${ARR}, arrayMap(x -> x + 1, ${ARR}))`],
  ["arrayCount", `arrayCount((x, y) -> x < y, ${ARR}, arraySort(${ARR}))`],
  ["arrayMap", `arrayMap(x -> arrayMin(arrayFilter(y -> y > x, ${ARR})), ${ARR})`],
  ["arrayMap", `arrayMap(x -> arrayCount(x -> x > 1, [x, x + 1]) * 10 + x, ${ARR})`],
  ["range", "range(1, 10, 3)"],
  ["JSONExtractString", `JSONExtractString(${J}, 's')`],
  ["JSONExtractInt", `JSONExtractInt(${J}, 'a', 'b', 2)`],
  ["JSONExtractInt", `JSONExtractInt(${J}, 's')`],
  ["JSONExtractFloat", `JSONExtractFloat(${J}, 'n')`],
  ["JSONExtractBool", `JSONExtractBool(${J}, 't')`],
  // Raw JSON as stored (Postgres' jsonb would respace objects and arrays).
  ["JSONExtractRaw", `JSONExtractRaw(${J}, 'n')`],
  ["JSONExtractArrayRaw", `JSONExtractArrayRaw(${J}, 'a', 'b')`],
  ["JSONExtractKeys", `arraySort(JSONExtractKeys(${J}))`],
  ["JSONHas", `JSONHas(${J}, 'a', 'c')`],
  ["JSONLength", `JSONLength(${J}, 'a', 'b')`],
  ["count", "count()"],
  ["count", "count(DISTINCT x)"],
  ["countIf", "countIf(x > 1)"],
  ["sum", "sum(x)"],
  ["sumIf", "sumIf(x, x > 5)"],
  ["avg", "avg(x)"],
  ["avgIf", "avgIf(x, x > 5)"],
  ["min", "min(x)"],
  ["minIf", "minIf(x, x > 1)"],
  ["max", "max(x)"],
  ["maxIf", "maxIf(x, x > 5)"],
  ["uniq", "uniq(x)"],
  ["uniqIf", "uniqIf(x, x > 1)"],
  ["uniqExact", "uniqExact(x, x > 1)"],
  ["uniqExactIf", "uniqExactIf(x, x > 1)"],
  ["any", "any(x)"],
  ["anyIf", "anyIf(x, x > 5)"],
  ["anyLast", "anyLast(x)"],
  ["argMin", "argMin(x * 10, x)"],
  ["argMax", "argMax(x * 10, x)"],
  ["argMinIf", "argMinIf(x * 10, x, x > 1)"],
  ["argMaxIf", "argMaxIf(x * 10, x, x > 5)"],
  ["median", "median(x)"],
  ["medianIf", "medianIf(x, x > 1)"],
  ["quantile", "quantile(0.9)(x)"],
  ["quantileIf", "quantileIf(0.25)(x, x > 1)"],
  ["quantiles", "quantiles(0.5, 0.9)(x)"],
  ["groupArray", "arraySort(groupArray(x))"],
  ["groupArrayIf", "arraySort(groupArrayIf(x, x > 1))"],
  ["groupUniqArray", "arraySort(groupUniqArray(x))"],
  ["topK", "topK(1)(x)"],
  ["stddevPop", "stddevPop(x)"],
  ["stddevSamp", "stddevSamp(x)"],
  ["varPop", "varPop(x)"],
  ["varSamp", "varSamp(x)"],
  ["corr", "corr(x, x * 2)"],
  ["covarPop", "covarPop(x, x * 2)"],
  ["covarSamp", "covarSamp(x, x * 2)"],
  ["avgWeighted", "avgWeighted(x, x)"],
  ["row_number", "row_number() OVER (ORDER BY x)"],
  ["rank", "rank() OVER (ORDER BY x)"],
  ["dense_rank", "dense_rank() OVER (ORDER BY x)"],
  ["percent_rank", "percent_rank() OVER (ORDER BY x)"],
  ["cume_dist", "cume_dist() OVER (ORDER BY x)"],
  ["ntile", "ntile(2) OVER (ORDER BY x)"],
  ["lagInFrame", "lagInFrame(x) OVER (ORDER BY x)"],
  ["leadInFrame", "leadInFrame(x, 1) OVER (ORDER BY x)"],
  ["first_value", "first_value(x) OVER (ORDER BY x)"],
  ["last_value", "last_value(x) OVER (ORDER BY x)"],
  ["nth_value", "nth_value(x, 2) OVER (ORDER BY x)"]
]

const VOLATILE = new Set(["now", "today", "yesterday", "topK"])
const AGGREGATE_OR_WINDOW = (name: string) =>
  SIGNATURES[name]!.aggregate === true || SIGNATURES[name]!.windowOnly === true

/** Aggregates and window functions run over x = 1, 2, 3, 3 and NULL; the others on constants. */
const sampleQuery = (name: string, expr: string) =>
  AGGREGATE_OR_WINDOW(name)
    ? `SELECT ${expr} FROM (SELECT arrayJoin([1, 2, 3, 3, NULL]) AS x) ORDER BY 1`
    : `SELECT ${expr}`

describe("the ClickHouse dialect", () => {
  it("prints every function ZedQL allows", () => {
    expect(Object.keys(SIGNATURES).filter((name) => !clickhouse.functions.has(name))).toEqual([])
    expect(Object.keys(SIGNATURES).filter((name) => !SAMPLES.some(([n]) => n === name))).toEqual([])
  })

  it.each(SAMPLES)("%s: %s runs on ClickHouse as on Postgres", async (name, expr) => {
    const text = sampleQuery(name, expr)
    const onCh = await onClickHouse(await compile(text, clickhouse))
    expect(onCh.length).toBeGreaterThan(0)
    if (VOLATILE.has(name) || !postgres.functions.has(name)) return
    expect(onCh).toEqual(await onPostgres(await compile(text, postgres)))
  })

  it("keeps the caller's project, and each person's latest version unless deleted", async () => {
    expect(await run("SELECT event FROM events ORDER BY event")).toEqual([["a"], ["b"]])
    expect(await run("SELECT properties.email, is_identified FROM persons ORDER BY 1")).toEqual([["new@x", true]])
    expect(await run("SELECT count() FROM events WHERE event = 'secret'")).toEqual([[0]])
  })

  it("reads properties as text, date-times in the project's zone", async () => {
    expect(
      await run(
        "SELECT properties.n, properties.s, properties.b, properties.missing, timestamp FROM events ORDER BY timestamp"
      )
    ).toEqual([
      ["1", 'x"y', "true", null, "2026-03-08T01:30:00.000000-05:00"],
      ["2.5", null, null, null, "2026-03-08T03:30:00.000000-04:00"]
    ])
    expect(
      await run("SELECT toStartOfDay(timestamp), toHour(timestamp), count() FROM events GROUP BY 1, 2 ORDER BY 2")
    ).toEqual([
      ["2026-03-08T00:00:00.000000-05:00", 1, 1],
      ["2026-03-08T00:00:00.000000-05:00", 3, 1]
    ])
  })

  it("gives SQL's answers where ClickHouse's own differ: NULLs, division by zero, lag and lead, UUID order", async () => {
    expect(
      await run(
        "SELECT properties.s = properties.missing, properties.missing = properties.nothing, properties.s != properties.missing, toFloat(properties.n) / 0, intDiv(1, 0) FROM events WHERE event = 'a'"
      )
    ).toEqual([[false, true, true, null, null]])
    expect(
      await run(
        "SELECT event, lagInFrame(event) OVER w, leadInFrame(event) OVER w FROM events WINDOW w AS (ORDER BY timestamp) ORDER BY timestamp"
      )
    ).toEqual([
      ["a", null, "b"],
      ["b", "a", null]
    ])
    expect(await run("SELECT DISTINCT person_id FROM events ORDER BY person_id DESC")).toEqual([
      ["00000000-0000-0000-0000-000000000002"],
      ["00000000-0000-0000-0000-000000000001"]
    ])
    expect(
      await run(
        "SELECT min(timestamp), max(properties.nothing), sum(toFloat(properties.nothing)), count() FROM events WHERE event = 'none'"
      )
    ).toEqual([[null, null, null, 0]])
  })

  it("prints ARRAY JOIN, sets with a LIMIT and named windows", async () => {
    expect(
      await run(
        "SELECT event, part FROM events ARRAY JOIN splitByChar('-', concat(event, '-x')) AS part ORDER BY event, part"
      )
    ).toEqual([
      ["a", "a"],
      ["a", "x"],
      ["b", "b"],
      ["b", "x"]
    ])
    // ZedQL's LIMIT belongs to the last SELECT, as ClickHouse's; the page limit to the whole set.
    expect(await run("SELECT event FROM events UNION ALL SELECT event FROM events LIMIT 1")).toHaveLength(3)
    expect(await run("SELECT event FROM events UNION ALL SELECT event FROM events")).toHaveLength(4)
    expect(await run("SELECT event FROM events EXCEPT SELECT 'a'")).toEqual([["b"]])
    expect(
      await run("SELECT event, row_number() OVER w FROM events WINDOW w AS (ORDER BY event DESC) ORDER BY event")
    ).toEqual([
      ["a", 2],
      ["b", 1]
    ])
  })

  it("binds lambdas over several arrays, and nested ones reading or shadowing their enclosing ones' parameters", async () => {
    const text =
      `SELECT arrayMap((x, y) -> x * 10 + y, [1, 2], [3, 4]), ` +
      `arrayMap(x -> arrayCount(x -> arrayExists(y -> y = x * 2, [2, 4, 6]), [x, x + 1]), ${ARR}), ` +
      `arrayMap(x -> arrayMin(arrayFilter(y -> y > x, ${ARR})), ${ARR})`
    const expected = [
      [
        [13, 24],
        [1, 2, 2, 1],
        [null, 2, 3, null]
      ]
    ]
    expect(await onClickHouse(await compile(text, clickhouse))).toEqual(expected)
    expect(await onPostgres(await compile(text, postgres))).toEqual(expected)
  })

  it("binds any text as a parameter, and gives it back unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), async (text) => {
        const quoted = `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
        const compiled = await compile(
          `SELECT ${quoted}, concat(${quoted}, '!'), count() FROM events WHERE event != ${quoted}`,
          clickhouse
        )
        if (text.length >= 8) expect(compiled.sql.includes(text)).toBe(false)
        expect(await onClickHouse(compiled)).toEqual([[text, `${text}!`, text === "a" || text === "b" ? 1 : 2]])
      }),
      { numRuns: 100 }
    )
  })

  it("quotes any name", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 12 }), async (name) => {
        const quoted = `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "``")}\``
        expect(
          await run(`SELECT t.${quoted}, ${quoted} FROM (SELECT event AS ${quoted} FROM events) AS t ORDER BY 1`)
        ).toEqual([
          ["a", "a"],
          ["b", "b"]
        ])
      }),
      { numRuns: 60 }
    )
  })
})

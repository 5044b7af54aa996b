import type { RCall as Call } from "../ir.js"
import { clickhouseName, T, type ZType } from "../types.js"
import { ZedQLPrintError } from "../printer.js"
import type { PgPrinter } from "./print.js"
import { pgType } from "./sql.js"
import { operatorFunctions } from "../operators.js"
import { constantText, unitOf } from "../units.js"

// How each ZedQL function is written in Postgres, with ClickHouse's meaning: 1-based positions,
// empty results where ClickHouse gives them ('' from JSONExtractString, 0 from a sum of nothing),
// weeks starting on Sunday for toStartOfWeek, dates in the session's (the project's) time zone.

/** `over` is the OVER clause when the function is used as a window function: aggregates and window functions place it. */
type PgFunction = (call: Call, p: PgPrinter, over?: string) => string

const args = (c: Call, p: PgPrinter) => c.args.map((a) => p.expr(a))
const arg = (c: Call, p: PgPrinter, i: number) => p.expr(c.args[i]!)

/** A plain function of the same arguments. */
const same =
  (name: string): PgFunction =>
  (c, p) =>
    `${name}(${args(c, p).join(", ")})`
/** As `same`, with the arguments at `positions` as int4: Postgres has no int8 versions of `left`, `lpad`, `lag`… */
const withInt4 =
  (name: string, ...positions: Array<number>): PgFunction =>
  (c, p) =>
    `${name}(${c.args.map((_, i) => (positions.includes(i) ? int4(c, p, i) : arg(c, p, i))).join(", ")})`
const int4 = (c: Call, p: PgPrinter, i: number) => `(${arg(c, p, i)})::int4`

const interval = (unit: string) => (unit === "quarter" ? "interval '3 months'" : `interval '1 ${unit}'`)

/** Shifts a date or date-time; a date shifted by days or more stays a date. */
const shift = (value: string, type: ZType, amount: string, unit: string, sign: "+" | "-") => {
  const sql = `(${value} ${sign} (${amount}) * ${interval(unit)})`
  return type.kind === "Date" && !["second", "minute", "hour"].includes(unit) ? `${sql}::date` : sql
}

/** The day a date or date-time falls on, in the session's zone, as a timestamp for date_trunc. */
const day = (value: string) => `(${value})::date::timestamp`

const DATE_PART: Readonly<Record<string, (v: string) => string>> = {
  toYear: (v) => `extract(year from ${v})::int8`,
  toQuarter: (v) => `extract(quarter from ${v})::int8`,
  toMonth: (v) => `extract(month from ${v})::int8`,
  toDayOfMonth: (v) => `extract(day from ${v})::int8`,
  // ClickHouse: Monday is 1, Sunday 7.
  toDayOfWeek: (v) => `extract(isodow from ${v})::int8`,
  toDayOfYear: (v) => `extract(doy from ${v})::int8`,
  toHour: (v) => `extract(hour from ${v})::int8`,
  toMinute: (v) => `extract(minute from ${v})::int8`,
  toSecond: (v) => `floor(extract(second from ${v}))::int8`,
  toISOWeek: (v) => `extract(week from ${v})::int8`,
  toISOYear: (v) => `extract(isoyear from ${v})::int8`,
  toYYYYMM: (v) => `(extract(year from ${v}) * 100 + extract(month from ${v}))::int8`,
  toYYYYMMDD: (v) => `(extract(year from ${v}) * 10000 + extract(month from ${v}) * 100 + extract(day from ${v}))::int8`
}

const START_OF: Readonly<Record<string, (v: string) => string>> = {
  toStartOfMinute: (v) => `date_trunc('minute', ${v})`,
  toStartOfFiveMinutes: (v) => `date_bin('5 minutes', ${v}, timestamptz '2000-01-01 00:00:00+00')`,
  toStartOfTenMinutes: (v) => `date_bin('10 minutes', ${v}, timestamptz '2000-01-01 00:00:00+00')`,
  toStartOfFifteenMinutes: (v) => `date_bin('15 minutes', ${v}, timestamptz '2000-01-01 00:00:00+00')`,
  toStartOfHour: (v) => `date_trunc('hour', ${v})`,
  toStartOfDay: (v) => `date_trunc('day', ${v})`,
  toMonday: (v) => `date_trunc('week', ${day(v)})::date`,
  toStartOfMonth: (v) => `date_trunc('month', ${day(v)})::date`,
  toStartOfQuarter: (v) => `date_trunc('quarter', ${day(v)})::date`,
  toStartOfYear: (v) => `date_trunc('year', ${day(v)})::date`,
  toStartOfISOYear: (v) => `date_trunc('week', make_date(extract(isoyear from ${v})::int, 1, 4)::timestamp)::date`
}

/** ClickHouse's dateDiff counts unit boundaries crossed, in the session's zone. */
const dateDiff = (unit: string, a: string, b: string): string => {
  const months = (v: string) => `(extract(year from ${v}) * 12 + extract(month from ${v}))`
  const epoch = (v: string) => `floor(extract(epoch from ${v}))`
  switch (unit) {
    case "second":
      return `(${epoch(b)} - ${epoch(a)})::int8`
    case "minute":
    case "hour":
      return `((${epoch(`date_trunc('${unit}', ${b})`)} - ${epoch(`date_trunc('${unit}', ${a})`)}) / ${unit === "minute" ? 60 : 3600})::int8`
    case "day":
      return `((${b})::date - (${a})::date)::int8`
    case "week":
      return `((date_trunc('week', ${day(b)})::date - date_trunc('week', ${day(a)})::date) / 7)::int8`
    case "month":
      return `(${months(b)} - ${months(a)})::int8`
    case "quarter":
      return `((extract(year from ${b}) * 4 + extract(quarter from ${b})) - (extract(year from ${a}) * 4 + extract(quarter from ${a})))::int8`
    default:
      return `(extract(year from ${b}) - extract(year from ${a}))::int8`
  }
}

/** ClickHouse's formatDateTime codes as to_char patterns; other text is quoted. */
const FORMAT_CODES: Readonly<Record<string, string>> = {
  Y: "YYYY",
  y: "YY",
  C: "CC",
  m: "MM",
  d: "DD",
  e: "FMDD",
  H: "HH24",
  I: "HH12",
  i: "MI",
  S: "SS",
  s: "SS",
  f: "US",
  p: "AM",
  j: "DDD",
  u: "ID",
  V: "IW",
  G: "IYYY",
  a: "Dy",
  A: "FMDay",
  b: "Mon",
  h: "Mon",
  B: "FMMonth",
  M: "FMMonth",
  F: "YYYY-MM-DD",
  T: "HH24:MI:SS",
  R: "HH24:MI",
  D: "MM/DD/YY",
  z: "OF",
  Q: "Q",
  n: "\n",
  t: "\t",
  "%": "%"
}

const toCharPattern = (format: string): string => {
  let pattern = ""
  let text = ""
  const flush = () => {
    if (text !== "") pattern += `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`
    text = ""
  }
  for (let i = 0; i < format.length; i++) {
    if (format[i] === "%" && i + 1 < format.length) {
      const code = FORMAT_CODES[format[i + 1]!]
      if (code === undefined) throw new ZedQLPrintError(`formatDateTime does not know %${format[i + 1]}`)
      flush()
      pattern += code
      i++
    } else {
      text += format[i]
    }
  }
  flush()
  return pattern
}

/** A JSON value at a path of keys (1-based array indexes), from a JSON column or JSON text. */
const jsonAt = (c: Call, p: PgPrinter) => {
  const base = p.json(c.args[0]!)
  const steps = c.args.slice(1).map((a) => {
    if (a.kind === "const" && typeof a.value === "number") return p.param(a.value > 0 ? a.value - 1 : a.value, "int4")
    return a.type.kind === "Int" ? `((${p.expr(a)})::int4 - 1)` : `(${p.expr(a)})::text`
  })
  return steps.length === 0 ? base : `(${base}${steps.map((s) => ` -> ${s}`).join("")})`
}

/**
 * What follows each aggregate call of an aggregate's SQL: `FILTER (WHERE …)` from its -If condition
 * (the last argument), its FILTER clause and conditions of its own, then the OVER clause of a window.
 */
type Tail = (own?: ReadonlyArray<string>) => string

/** An aggregate, whose SQL may wrap its aggregate calls (coalesce, casts): the tail goes right after each call. */
const aggregate =
  (body: (c: Call, p: PgPrinter, tail: Tail) => string, conditional = false): PgFunction =>
  (c, p, over = "") => {
    const conditions = [
      ...(conditional ? [`coalesce(${arg(c, p, c.args.length - 1)}, false)`] : []),
      ...(c.filter ? [`coalesce(${p.expr(c.filter)}, false)`] : [])
    ]
    return body(c, p, (own = []) => {
      const all = [...own, ...conditions]
      return `${all.length === 0 ? "" : ` FILTER (WHERE ${all.join(" AND ")})`}${over}`
    })
  }
/** A window-only function: the OVER clause follows it. */
const windowed =
  (f: PgFunction): PgFunction =>
  (c, p, over = "") =>
    `${f(c, p)}${over}`

const distinct = (c: Call) => (c.distinct ? "DISTINCT " : "")
const sumOf = (c: Call, p: PgPrinter, tail: Tail) => {
  const value = `sum(${distinct(c)}${arg(c, p, 0)})${tail()}`
  return c.args[0]!.type.kind === "Int" ? `(${value})::int8` : value
}
const pick = (order: "ASC" | "DESC") => (c: Call, p: PgPrinter, tail: Tail) =>
  `(array_agg(${arg(c, p, 0)} ORDER BY ${arg(c, p, 1)} ${order})${tail([`${arg(c, p, 1)} IS NOT NULL`])})[1]`
const anyOf = (c: Call, p: PgPrinter, tail: Tail) =>
  `(array_agg(${arg(c, p, 0)})${tail([`${arg(c, p, 0)} IS NOT NULL`])})[1]`
const uniq = (c: Call, p: PgPrinter, n: number, tail: Tail) => {
  const values = c.args.slice(0, n).map((a) => p.expr(a))
  return `count(DISTINCT ${values.length === 1 ? values[0] : `(${values.join(", ")})`})${tail()}`
}
const percentile = (c: Call, p: PgPrinter, fraction: string, tail: Tail) =>
  `percentile_cont(${fraction}) WITHIN GROUP (ORDER BY (${arg(c, p, 0)})::float8)${tail()}`
const notNullArray = (c: Call, p: PgPrinter, tail: Tail, distinctValues = false) =>
  `coalesce(array_agg(${distinctValues ? "DISTINCT " : ""}${arg(c, p, 0)})${tail([`${arg(c, p, 0)} IS NOT NULL`])}, ${emptyArray(c.type)})`
const emptyArray = (type: ZType) => `ARRAY[]::${pgType(type)}`

/**
 * Array functions with a lambda, over the elements of the arrays after it, unnested side by side
 * (`x`: the first array's, `i`: their position), named by the lambda's depth so nested ones differ.
 */
const overElements = (c: Call, p: PgPrinter, build: (body: string, from: string, x: string, i: string) => string) => {
  const arrays = c.args.slice(1).map((a) => p.expr(a))
  const { body, n, names } = p.bindLambda(c.args[0]!)
  return build(
    body,
    `unnest(${arrays.join(", ")}) WITH ORDINALITY AS zq_u${n}(${names.join(", ")}, zq_i${n})`,
    names[0]!,
    `zq_i${n}`
  )
}

export const POSTGRES_FUNCTIONS: Readonly<Record<string, PgFunction>> = {
  ...operatorFunctions<PgPrinter>(),
  toString: (c: Call, p: PgPrinter) => p.cast(c.args[0]!, T.String),
  toInt: (c, p) => p.cast(c.args[0]!, T.Int),
  toFloat: (c, p) => p.cast(c.args[0]!, T.Float),
  toDecimal: (c, p) => p.cast(c.args[0]!, T.Float),
  toUUID: (c, p) => p.cast(c.args[0]!, T.UUID),
  toBool: (c, p) => p.cast(c.args[0]!, T.Bool),
  toDate: (c, p) =>
    c.args[1] ? `(${p.cast(c.args[0]!, T.DateTime)} AT TIME ZONE ${arg(c, p, 1)})::date` : p.cast(c.args[0]!, T.Date),
  toDateTime: (c, p) => p.cast(c.args[0]!, T.DateTime),
  parseDateTimeBestEffort: (c, p) => p.cast(c.args[0]!, T.DateTime),
  // Results are always shown in the project's zone; the instant is unchanged.
  toTimeZone: (c, p) => arg(c, p, 0),
  toJSONString: (c, p) => `to_json(${arg(c, p, 0)})::text`,
  toIntOrZero: (c, p) => `coalesce(${p.cast(c.args[0]!, T.Int)}, 0)`,
  toFloatOrZero: (c, p) => `coalesce(${p.cast(c.args[0]!, T.Float)}, 0)`,
  toFloatOrDefault: (c, p) => `coalesce(${p.cast(c.args[0]!, T.Float)}, (${arg(c, p, 1)})::float8)`,
  toTypeName: (c, p) => p.param(clickhouseName(c.args[0]!.type, p.timezone), "text"),

  now: () => "now()",
  // As in ClickHouse, today() is the server's (UTC) day, not the project's.
  today: () => "(now() AT TIME ZONE 'UTC')::date",
  yesterday: () => "((now() AT TIME ZONE 'UTC')::date - 1)",
  ...Object.fromEntries(
    Object.entries(DATE_PART).map(([name, f]) => [name, (c: Call, p: PgPrinter) => f(arg(c, p, 0))])
  ),
  ...Object.fromEntries(
    Object.entries(START_OF).map(([name, f]) => [name, (c: Call, p: PgPrinter) => f(arg(c, p, 0))])
  ),
  // Mode 0 (the default) starts weeks on Sunday, mode 1 on Monday.
  toStartOfWeek: (c, p) => {
    const mode = c.args[1]?.kind === "const" ? Number(c.args[1].value) : 0
    const v = arg(c, p, 0)
    return mode % 2 === 1
      ? `date_trunc('week', ${day(v)})::date`
      : `(date_trunc('week', (${v})::date::timestamp + interval '1 day')::date - 1)`
  },
  toStartOfInterval: (c, p) => `date_bin(${arg(c, p, 1)}, ${arg(c, p, 0)}, timestamptz '2000-01-03 00:00:00+00')`,
  dateTrunc: (c, p) => {
    const unit = unitOf(c.args[0])
    const v = arg(c, p, 1)
    return `date_trunc('${unit}', (${v})::timestamptz)`
  },
  dateDiff: (c, p) => dateDiff(unitOf(c.args[0]), arg(c, p, 1), arg(c, p, 2)),
  dateAdd: (c, p) => shift(arg(c, p, 2), c.args[2]!.type, arg(c, p, 1), unitOf(c.args[0]), "+"),
  dateSub: (c, p) => shift(arg(c, p, 2), c.args[2]!.type, arg(c, p, 1), unitOf(c.args[0]), "-"),
  ...Object.fromEntries(
    ["Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"].flatMap((u) => {
      const unit = u.toLowerCase()
      return [
        [`add${u}s`, (c: Call, p: PgPrinter) => shift(arg(c, p, 0), c.args[0]!.type, arg(c, p, 1), unit, "+")],
        [`subtract${u}s`, (c: Call, p: PgPrinter) => shift(arg(c, p, 0), c.args[0]!.type, arg(c, p, 1), unit, "-")],
        [`toInterval${u}`, (c: Call, p: PgPrinter) => `((${arg(c, p, 0)}) * ${interval(unit)})`]
      ]
    })
  ),
  toUnixTimestamp: (c, p) => `floor(extract(epoch from ${arg(c, p, 0)}))::int8`,
  fromUnixTimestamp: (c, p) => `to_timestamp(${arg(c, p, 0)})`,
  formatDateTime: (c, p) =>
    `to_char(${arg(c, p, 0)}, ${p.param(toCharPattern(constantText(c.args[1], "The format")), "text")})`,

  // ClickHouse's length counts bytes of a string.
  length: (c, p) =>
    c.args[0]!.type.kind === "Array"
      ? `coalesce(cardinality(${arg(c, p, 0)}), 0)::int8`
      : `octet_length(${arg(c, p, 0)})::int8`,
  empty: (c, p) =>
    c.args[0]!.type.kind === "Array"
      ? `(coalesce(cardinality(${arg(c, p, 0)}), 0) = 0)`
      : `(coalesce(${arg(c, p, 0)}, '') = '')`,
  notEmpty: (c, p) =>
    c.args[0]!.type.kind === "Array"
      ? `(coalesce(cardinality(${arg(c, p, 0)}), 0) > 0)`
      : `(coalesce(${arg(c, p, 0)}, '') <> '')`,
  lower: same("lower"),
  upper: same("upper"),
  lowerUTF8: same("lower"),
  upperUTF8: same("upper"),
  concat: (c, p) => `(${c.args.map((a) => p.cast(a, T.String)).join(" || ")})`,
  substring: (c, p) =>
    c.args[2]
      ? `substring(${arg(c, p, 0)} from ${int4(c, p, 1)} for ${int4(c, p, 2)})`
      : `substring(${arg(c, p, 0)} from ${int4(c, p, 1)})`,
  left: withInt4("left", 1),
  right: withInt4("right", 1),
  trim: same("btrim"),
  trimLeft: same("ltrim"),
  trimRight: same("rtrim"),
  reverse: same("reverse"),
  repeat: withInt4("repeat", 1),
  leftPad: withInt4("lpad", 1),
  rightPad: withInt4("rpad", 1),
  position: (c, p) => `strpos(${arg(c, p, 0)}, ${arg(c, p, 1)})::int8`,
  positionCaseInsensitive: (c, p) => `strpos(lower(${arg(c, p, 0)}), lower(${arg(c, p, 1)}))::int8`,
  startsWith: same("starts_with"),
  endsWith: (c, p) => `(right(${arg(c, p, 0)}, length(${arg(c, p, 1)})) = ${arg(c, p, 1)})`,
  replaceAll: same("replace"),
  replaceOne: (c, p) => {
    const [s, from, to] = args(c, p)
    return `(CASE WHEN strpos(${s}, ${from}) > 0 THEN overlay(${s} placing ${to} from strpos(${s}, ${from}) for length(${from})) ELSE ${s} END)`
  },
  replaceRegexpAll: (c, p) => `regexp_replace(${arg(c, p, 0)}, ${arg(c, p, 1)}, ${arg(c, p, 2)}, 'g')`,
  replaceRegexpOne: (c, p) => `regexp_replace(${arg(c, p, 0)}, ${arg(c, p, 1)}, ${arg(c, p, 2)})`,
  match: (c, p) => `(${arg(c, p, 0)} ~ ${arg(c, p, 1)})`,
  extract: (c, p) => `coalesce(substring(${arg(c, p, 0)} from ${arg(c, p, 1)}), '')`,
  like: (c, p) => p.compare("like", c.args[0]!, c.args[1]!),
  ilike: (c, p) => p.compare("ilike", c.args[0]!, c.args[1]!),
  notLike: (c, p) => p.compare("not like", c.args[0]!, c.args[1]!),
  notILike: (c, p) => p.compare("not ilike", c.args[0]!, c.args[1]!),
  // ClickHouse names the separator first.
  splitByChar: (c, p) => `string_to_array(${arg(c, p, 1)}, ${arg(c, p, 0)})`,
  splitByString: (c, p) => `string_to_array(${arg(c, p, 1)}, ${arg(c, p, 0)})`,
  base64Encode: (c, p) => `replace(encode(convert_to(${arg(c, p, 0)}, 'UTF8'), 'base64'), chr(10), '')`,
  base64Decode: (c, p) => `convert_from(decode(${arg(c, p, 0)}, 'base64'), 'UTF8')`,

  domain: (c, p) => `substring(${arg(c, p, 0)} from '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#:]*)')`,
  path: (c, p) => `coalesce(substring(${arg(c, p, 0)} from '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^/?#]*([^?#]*)'), '')`,
  protocol: (c, p) => `coalesce(substring(${arg(c, p, 0)} from '^([a-zA-Z][a-zA-Z0-9+.-]*):'), '')`,
  extractURLParameter: (c, p) => {
    const name = constantText(c.args[1], "The parameter name").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    return `coalesce(substring(${arg(c, p, 0)} from ${p.param(`[?&]${name}=([^&#]*)`, "text")}), '')`
  },
  cutQueryString: (c, p) => `regexp_replace(${arg(c, p, 0)}, '\\?[^#]*', '')`,

  if: (c, p) => `(CASE WHEN coalesce(${arg(c, p, 0)}, false) THEN ${arg(c, p, 1)} ELSE ${arg(c, p, 2)} END)`,
  multiIf: (c, p) => {
    const a = args(c, p)
    const branches: Array<string> = []
    for (let i = 0; i + 1 < a.length; i += 2) branches.push(`WHEN coalesce(${a[i]}, false) THEN ${a[i + 1]}`)
    return `(CASE ${branches.join(" ")} ELSE ${a[a.length - 1]} END)`
  },
  coalesce: same("coalesce"),
  ifNull: same("coalesce"),
  nullIf: same("nullif"),
  greatest: same("greatest"),
  least: same("least"),

  intDiv: (c, p) => `trunc((${arg(c, p, 0)})::numeric / nullif((${arg(c, p, 1)})::numeric, 0))::int8`,
  abs: same("abs"),
  sign: (c, p) => `sign(${arg(c, p, 0)})::int8`,
  round: (c, p) =>
    c.args[1]
      ? `round((${arg(c, p, 0)})::numeric, ${int4(c, p, 1)})::float8`
      : c.type.kind === "Int"
        ? arg(c, p, 0)
        : `round(${arg(c, p, 0)})`,
  floor: (c, p) =>
    c.args[1]
      ? `(floor((${arg(c, p, 0)})::numeric * 10 ^ ${arg(c, p, 1)}) / 10 ^ ${arg(c, p, 1)})::float8`
      : `floor(${arg(c, p, 0)})`,
  ceil: (c, p) =>
    c.args[1]
      ? `(ceil((${arg(c, p, 0)})::numeric * 10 ^ ${arg(c, p, 1)}) / 10 ^ ${arg(c, p, 1)})::float8`
      : `ceil(${arg(c, p, 0)})`,
  sqrt: (c, p) => `sqrt((${arg(c, p, 0)})::float8)`,
  exp: (c, p) => `exp((${arg(c, p, 0)})::float8)`,
  log: (c, p) => `ln(nullif((${arg(c, p, 0)})::float8, 0))`,
  log2: (c, p) => `(ln(nullif((${arg(c, p, 0)})::float8, 0)) / ln(2))`,
  log10: (c, p) => `log(nullif((${arg(c, p, 0)})::float8, 0))`,
  pow: (c, p) => `power((${arg(c, p, 0)})::float8, (${arg(c, p, 1)})::float8)`,
  pi: () => "pi()",

  array: (c, p) => (c.args.length === 0 ? emptyArray(c.type) : `ARRAY[${args(c, p).join(", ")}]`),
  tuple: (c, p) => `jsonb_build_array(${args(c, p).join(", ")})`,
  tupleElement: (c, p) => `((${arg(c, p, 0)}) ->> ((${arg(c, p, 1)})::int4 - 1))`,
  arrayJoin: (c, p) => `unnest(${arg(c, p, 0)})`,
  has: (c, p) => `coalesce(${arg(c, p, 1)} = ANY(${arg(c, p, 0)}), false)`,
  hasAny: (c, p) => `coalesce(${arg(c, p, 0)} && ${arg(c, p, 1)}, false)`,
  hasAll: (c, p) => `coalesce(${arg(c, p, 0)} @> ${arg(c, p, 1)}, false)`,
  indexOf: (c, p) => `coalesce(array_position(${arg(c, p, 0)}, ${arg(c, p, 1)}), 0)::int8`,
  arrayElement: (c, p) => {
    const [array, i] = args(c, p)
    return `(CASE WHEN ${i} < 0 THEN (${array})[cardinality(${array}) + 1 + ${i}] ELSE (${array})[${i}] END)`
  },
  arraySlice: (c, p) => {
    const [array, offset, length] = args(c, p)
    return length ? `(${array})[${offset}:${offset} + ${length} - 1]` : `(${array})[${offset}:]`
  },
  arrayConcat: (c, p) => `(${args(c, p).join(" || ")})`,
  arrayDistinct: (c, p) =>
    `ARRAY(SELECT "zq_x" FROM unnest(${arg(c, p, 0)}) WITH ORDINALITY AS "zq_u"("zq_x", "zq_i") GROUP BY "zq_x" ORDER BY min("zq_i"))`,
  arraySort: (c, p) => `ARRAY(SELECT "zq_x" FROM unnest(${arg(c, p, 0)}) AS "zq_u"("zq_x") ORDER BY 1)`,
  arrayReverse: (c, p) =>
    `ARRAY(SELECT "zq_x" FROM unnest(${arg(c, p, 0)}) WITH ORDINALITY AS "zq_u"("zq_x", "zq_i") ORDER BY "zq_i" DESC)`,
  arraySum: (c, p) => `(SELECT coalesce(sum("zq_x"), 0) FROM unnest(${arg(c, p, 0)}) AS "zq_u"("zq_x"))`,
  arrayMin: (c, p) => `(SELECT min("zq_x") FROM unnest(${arg(c, p, 0)}) AS "zq_u"("zq_x"))`,
  arrayMax: (c, p) => `(SELECT max("zq_x") FROM unnest(${arg(c, p, 0)}) AS "zq_u"("zq_x"))`,
  arrayStringConcat: (c, p) => `array_to_string(${arg(c, p, 0)}, ${c.args[1] ? arg(c, p, 1) : "''"})`,
  arrayMap: (c, p) => overElements(c, p, (body, from, _, i) => `ARRAY(SELECT ${body} FROM ${from} ORDER BY ${i})`),
  arrayFilter: (c, p) =>
    overElements(
      c,
      p,
      (body, from, x, i) => `ARRAY(SELECT ${x} FROM ${from} WHERE coalesce(${body}, false) ORDER BY ${i})`
    ),
  arrayExists: (c, p) =>
    overElements(c, p, (body, from) => `EXISTS (SELECT 1 FROM ${from} WHERE coalesce(${body}, false))`),
  arrayAll: (c, p) =>
    overElements(c, p, (body, from) => `NOT EXISTS (SELECT 1 FROM ${from} WHERE NOT coalesce(${body}, false))`),
  arrayCount: (c, p) =>
    c.args.length === 1
      ? `(SELECT count(*) FROM unnest(${arg(c, p, 0)}) AS "zq_u"("zq_x") WHERE coalesce("zq_x"::text NOT IN ('0', 'false', ''), false))`
      : overElements(c, p, (body, from) => `(SELECT count(*) FROM ${from} WHERE coalesce(${body}, false))`),
  range: (c, p) => {
    const a = args(c, p)
    const [start, end, step] = a.length === 1 ? ["0", a[0]!, "1"] : [a[0]!, a[1]!, a[2] ?? "1"]
    return `ARRAY(SELECT generate_series(${start}, (${end}) - 1, ${step})::int8)`
  },

  // ClickHouse answers an empty value rather than NULL when the key is missing or of another type.
  JSONExtractString: (c, p) => {
    const v = jsonAt(c, p)
    return `coalesce(CASE WHEN jsonb_typeof(${v}) = 'string' THEN ${v} #>> '{}' END, '')`
  },
  JSONExtractInt: (c, p) => {
    const v = jsonAt(c, p)
    return `coalesce(CASE jsonb_typeof(${v}) WHEN 'number' THEN trunc((${v})::text::numeric)::int8 WHEN 'boolean' THEN (${v})::text::boolean::int4::int8 END, 0)`
  },
  JSONExtractFloat: (c, p) => {
    const v = jsonAt(c, p)
    return `coalesce(CASE jsonb_typeof(${v}) WHEN 'number' THEN (${v})::text::float8 END, 0)`
  },
  JSONExtractBool: (c, p) => {
    const v = jsonAt(c, p)
    return `coalesce(CASE jsonb_typeof(${v}) WHEN 'boolean' THEN (${v})::text::boolean WHEN 'number' THEN (${v})::text::numeric <> 0 END, false)`
  },
  JSONExtractRaw: (c, p) => `coalesce((${jsonAt(c, p)})::text, '')`,
  JSONExtractArrayRaw: (c, p) => {
    const v = jsonAt(c, p)
    return `(CASE WHEN jsonb_typeof(${v}) = 'array' THEN ARRAY(SELECT jsonb_array_elements(${v})::text) ELSE ARRAY[]::text[] END)`
  },
  JSONExtractKeys: (c, p) => {
    const v = jsonAt(c, p)
    return `(CASE WHEN jsonb_typeof(${v}) = 'object' THEN ARRAY(SELECT jsonb_object_keys(${v})) ELSE ARRAY[]::text[] END)`
  },
  JSONHas: (c, p) => `(${jsonAt(c, p)} IS NOT NULL)`,
  JSONLength: (c, p) => {
    const v = jsonAt(c, p)
    return `(CASE jsonb_typeof(${v}) WHEN 'array' THEN jsonb_array_length(${v}) WHEN 'object' THEN (SELECT count(*) FROM jsonb_object_keys(${v})) ELSE 0 END)::int8`
  },

  count: aggregate((c, p, t) =>
    c.args.length === 0 ? `count(*)${t()}` : `count(${distinct(c)}${arg(c, p, 0)})${t()}`
  ),
  countIf: aggregate(
    (c, p, t) => (c.args.length === 1 ? `count(*)${t()}` : `count(${distinct(c)}${arg(c, p, 0)})${t()}`),
    true
  ),
  sum: aggregate((c, p, t) => (c.args[0]!.type.nullable ? sumOf(c, p, t) : `coalesce(${sumOf(c, p, t)}, 0)`)),
  sumIf: aggregate((c, p, t) => `coalesce(${sumOf(c, p, t)}, 0)`, true),
  avg: aggregate((c, p, t) => `avg(${distinct(c)}(${arg(c, p, 0)})::float8)${t()}`),
  avgIf: aggregate((c, p, t) => `avg((${arg(c, p, 0)})::float8)${t()}`, true),
  min: aggregate((c, p, t) => `min(${arg(c, p, 0)})${t()}`),
  minIf: aggregate((c, p, t) => `min(${arg(c, p, 0)})${t()}`, true),
  max: aggregate((c, p, t) => `max(${arg(c, p, 0)})${t()}`),
  maxIf: aggregate((c, p, t) => `max(${arg(c, p, 0)})${t()}`, true),
  uniq: aggregate((c, p, t) => uniq(c, p, c.args.length, t)),
  uniqIf: aggregate((c, p, t) => uniq(c, p, 1, t), true),
  uniqExact: aggregate((c, p, t) => uniq(c, p, c.args.length, t)),
  uniqExactIf: aggregate((c, p, t) => uniq(c, p, 1, t), true),
  any: aggregate(anyOf),
  anyIf: aggregate(anyOf, true),
  anyLast: aggregate(
    (c, p, t) => `(array_agg(${arg(c, p, 0)})${t([`${arg(c, p, 0)} IS NOT NULL`])})[count(${arg(c, p, 0)})${t()}]`
  ),
  argMin: aggregate(pick("ASC")),
  argMax: aggregate(pick("DESC")),
  argMinIf: aggregate(pick("ASC"), true),
  argMaxIf: aggregate(pick("DESC"), true),
  median: aggregate((c, p, t) => percentile(c, p, "0.5", t)),
  medianIf: aggregate((c, p, t) => percentile(c, p, "0.5", t), true),
  quantile: aggregate((c, p, t) => percentile(c, p, `(${p.expr(c.params[0]!)})::float8`, t)),
  quantileIf: aggregate((c, p, t) => percentile(c, p, `(${p.expr(c.params[0]!)})::float8`, t), true),
  quantiles: aggregate((c, p, t) =>
    percentile(c, p, `ARRAY[${c.params.map((x) => `(${p.expr(x)})::float8`).join(", ")}]`, t)
  ),
  // ClickHouse's groupArray skips NULLs and answers [] for no rows.
  groupArray: aggregate((c, p, t) => notNullArray(c, p, t)),
  groupArrayIf: aggregate((c, p, t) => notNullArray(c, p, t), true),
  groupUniqArray: aggregate((c, p, t) => notNullArray(c, p, t, true)),
  stddevPop: aggregate((c, p, t) => `stddev_pop((${arg(c, p, 0)})::float8)${t()}`),
  stddevSamp: aggregate((c, p, t) => `stddev_samp((${arg(c, p, 0)})::float8)${t()}`),
  varPop: aggregate((c, p, t) => `var_pop((${arg(c, p, 0)})::float8)${t()}`),
  varSamp: aggregate((c, p, t) => `var_samp((${arg(c, p, 0)})::float8)${t()}`),
  corr: aggregate((c, p, t) => `corr((${arg(c, p, 0)})::float8, (${arg(c, p, 1)})::float8)${t()}`),
  covarPop: aggregate((c, p, t) => `covar_pop((${arg(c, p, 0)})::float8, (${arg(c, p, 1)})::float8)${t()}`),
  covarSamp: aggregate((c, p, t) => `covar_samp((${arg(c, p, 0)})::float8, (${arg(c, p, 1)})::float8)${t()}`),
  avgWeighted: aggregate(
    (c, p, t) =>
      `(sum((${arg(c, p, 0)})::float8 * (${arg(c, p, 1)})::float8)${t()} / nullif(sum((${arg(c, p, 1)})::float8)${t()}, 0))`
  ),

  row_number: windowed(() => "row_number()"),
  rank: windowed(() => "rank()"),
  dense_rank: windowed(() => "dense_rank()"),
  percent_rank: windowed(() => "percent_rank()"),
  cume_dist: windowed(() => "cume_dist()"),
  ntile: windowed(withInt4("ntile", 0)),
  lagInFrame: windowed(withInt4("lag", 1)),
  leadInFrame: windowed(withInt4("lead", 1)),
  first_value: windowed(same("first_value")),
  last_value: windowed(same("last_value")),
  nth_value: windowed(withInt4("nth_value", 1))
}

import type { RCall as Call, RExpr } from "../ir.js"
import { ZedQLPrintError } from "../printer.js"
import { clickhouseName, T, type ZType } from "../types.js"
import type { ChPrinter } from "./print.js"
import { literal } from "./sql.js"
import { operatorFunctions } from "../operators.js"
import { constantText, unitOf } from "../units.js"

// How each ZedQL function is written in ClickHouse, with the results the Postgres dialect gives:
// most are ClickHouse's own; some add what ZedQL means (OrNull conversions, the project's zone for
// tz-aware ones, NULL rather than a default value for aggregates of nothing and elements out of
// range, '' where Postgres coalesces).

/** `over` is the OVER clause when the function is used as a window function: aggregates and window functions place it. */
type ChFunction = (call: Call, p: ChPrinter, over?: string) => string

const args = (c: Call, p: ChPrinter) => c.args.map((a) => p.expr(a))
const arg = (c: Call, p: ChPrinter, i: number) => p.expr(c.args[i]!)

/** A plain function of the same arguments. */
const same =
  (name: string): ChFunction =>
  (c, p) =>
    `${name}(${args(c, p).join(", ")})`

/** Values of a wider type than some of them: ClickHouse finds no common type for Int64 and Float64. */
const widened = (type: ZType, values: ReadonlyArray<RExpr>, p: ChPrinter) =>
  values.map((v) => (type.kind === "Float" && v.type.kind === "Int" ? `toFloat64(${p.expr(v)})` : p.expr(v)))
/** A function of values of one type (the result's), and conditions (at `conditions`) as they are. */
const alike =
  (name: string, conditions: (i: number, count: number) => boolean = () => false): ChFunction =>
  (c, p) =>
    `${name}(${c.args.map((a, i) => (conditions(i, c.args.length) ? p.expr(a) : widened(c.type, [a], p)[0])).join(", ")})`

const capitalized = (unit: string) => `${unit[0]!.toUpperCase()}${unit.slice(1)}`

/** Shifts a date or date-time by a number of units (a date stays a date for days and more, as ClickHouse does). */
const shift = (value: string, amount: string, unit: string, sign: "+" | "-") =>
  `${sign === "+" ? "add" : "subtract"}${capitalized(unit)}s(${value}, ${amount})`

/** The start of a unit as a date-time in the project's zone. */
const truncate = (unit: string, v: string, p: ChPrinter): string => {
  const value = `toDateTime64(${v}, 6, ${p.tz})`
  if (unit === "second") return `toStartOfSecond(${value})`
  return `toDateTime64(${unit === "week" ? "toMonday" : `toStartOf${capitalized(unit)}`}(${value}), 6, ${p.tz})`
}

const DATE_PARTS = [
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
]
const START_OF = [
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
]

/**
 * ZedQL's formatDateTime codes (those the Postgres dialect knows) in ClickHouse: a code of
 * ClickHouse's own, or an expression where ClickHouse writes it otherwise.
 */
const FORMAT_CODES: Readonly<Record<string, string | ((v: string) => string)>> = {
  Y: "%Y",
  y: "%y",
  C: "%C",
  m: "%m",
  d: "%d",
  e: (v) => `toString(toDayOfMonth(${v}))`,
  H: "%H",
  I: "%I",
  i: "%i",
  S: "%S",
  s: "%S",
  f: "%f",
  p: "%p",
  j: "%j",
  u: "%u",
  V: "%V",
  G: (v) => `toString(toISOYear(${v}))`,
  a: "%a",
  A: (v) => `dateName('weekday', ${v})`,
  b: "%b",
  h: "%b",
  B: (v) => `dateName('month', ${v})`,
  M: (v) => `dateName('month', ${v})`,
  F: "%F",
  T: "%T",
  R: "%R",
  D: "%D",
  z: (v) => `substring(formatDateTime(${v}, '%z'), 1, 3)`,
  Q: "%Q",
  n: "\n",
  t: "\t",
  "%": "%%"
}

const formatDateTime = (c: Call, p: ChPrinter): string => {
  const format = constantText(c.args[1], "The format")
  const v = arg(c, p, 0)
  const parts: Array<string> = []
  let pattern = ""
  const flush = () => {
    if (pattern !== "") parts.push(`formatDateTime(${v}, ${p.param(pattern, "String")}, ${p.tz})`)
    pattern = ""
  }
  for (let i = 0; i < format.length; i++) {
    if (format[i] === "%" && i + 1 < format.length) {
      const code = FORMAT_CODES[format[i + 1]!]
      if (code === undefined) throw new ZedQLPrintError(`formatDateTime does not know %${format[i + 1]}`)
      if (typeof code === "string") pattern += code
      else {
        flush()
        parts.push(code(v))
      }
      i++
    } else {
      pattern += format[i] === "%" ? "%%" : format[i]
    }
  }
  flush()
  if (parts.length === 0) return `if(${v} IS NULL, NULL, '')`
  return parts.length === 1 ? parts[0]! : `concat(${parts.join(", ")})`
}

/** The JSON text and path of a JSON function's arguments: a property's path continues with them. */
const jsonArgs = (c: Call, p: ChPrinter, notNull = false) => {
  const { base, steps } = p.jsonPath(c.args[0]!)
  const more = c.args
    .slice(1)
    .map((a) =>
      a.kind === "const" && (typeof a.value === "string" || typeof a.value === "number") ? p.step(a.value) : p.step(a)
    )
  return [notNull ? `ifNull(${base}, '')` : base, ...steps, ...more].join(", ")
}
/** The JSON type of the value at the path (`Null` when missing). */
const jsonType = (c: Call, p: ChPrinter) => `JSONType(${jsonArgs(c, p)})`

/**
 * What follows each aggregate call: the combinators for its -If condition (its last argument) and
 * FILTER clause, and the OVER clause of a window. `build` writes an aggregate call with them.
 */
interface Aggregate {
  readonly call: (
    name: string,
    values: ReadonlyArray<string>,
    options?: { readonly params?: ReadonlyArray<string>; readonly orNull?: boolean; readonly distinct?: boolean }
  ) => string
}

const aggregate =
  (body: (c: Call, p: ChPrinter, a: Aggregate) => string, conditional = false): ChFunction =>
  (c, p, over = "") => {
    const conditions = [...(conditional ? [arg(c, p, c.args.length - 1)] : []), ...(c.filter ? [p.expr(c.filter)] : [])]
    const condition = conditions.length === 0 ? undefined : conditions.map((x) => `ifNull(${x}, false)`).join(" AND ")
    return body(c, p, {
      call: (name, values, options = {}) => {
        const combinators = `${condition === undefined ? "" : "If"}${options.orNull ? "OrNull" : ""}`
        const params = options.params === undefined ? "" : `(${options.params.join(", ")})`
        const all = [...values, ...(condition === undefined ? [] : [condition])]
        return `${name}${combinators}${params}(${options.distinct ? "DISTINCT " : ""}${all.join(", ")})${over}`
      }
    })
  }

/** A window-only function: the OVER clause follows it. */
const windowed =
  (f: ChFunction): ChFunction =>
  (c, p, over = "") =>
    `${f(c, p)}${over}`

/** A statistic that Postgres answers NULL for where ClickHouse answers NaN or infinity (too few rows). */
const finite = (sql: string) => `if(isFinite(${sql}), ${sql}, NULL)`
const float = (c: Call, p: ChPrinter, i: number) => `toFloat64(${arg(c, p, i)})`

const sumOf = (c: Call, p: ChPrinter, a: Aggregate) => a.call("sum", [arg(c, p, 0)], { distinct: c.distinct })
/** argMin/argMax of the value (kept even when NULL), NULL when no row has an ordering value. */
const pick = (name: "argMin" | "argMax") => (c: Call, p: ChPrinter, a: Aggregate) =>
  `if(${a.call("count", [arg(c, p, 1)])} = 0, NULL, tupleElement(${a.call(name, [`tuple(${arg(c, p, 0)})`, arg(c, p, 1)])}, 1))`
const uniq = (c: Call, p: ChPrinter, n: number, a: Aggregate) => {
  const values = c.args.slice(0, n).map((x) => p.expr(x))
  return a.call("uniqExact", [values.length === 1 ? values[0]! : `tuple(${values.join(", ")})`])
}
const quantile = (c: Call, p: ChPrinter, level: string, a: Aggregate) =>
  a.call("quantileExactInclusive", [float(c, p, 0)], { params: [level], orNull: true })

/** Array functions with a lambda: the lambda first, then the arrays its parameters range over. */
const withLambda =
  (name: string): ChFunction =>
  (c, p) => {
    const { body, names } = p.bindLambda(c.args[0]!)
    return `${name}((${names.join(", ")}) -> ${body}, ${c.args
      .slice(1)
      .map((a) => p.expr(a))
      .join(", ")})`
  }

/** The value or '' as Postgres' coalesce gives it. */
const orEmpty = (sql: string) => `ifNull(${sql}, '')`

/** The same regular expression as the Postgres dialect: the first group, or NULL without a match. */
const group = (value: string, pattern: string) =>
  `if(match(${value}, ${literal(pattern)}), extract(${value}, ${literal(pattern)}), NULL)`

export const CLICKHOUSE_FUNCTIONS: Readonly<Record<string, ChFunction>> = {
  ...operatorFunctions<ChPrinter>(),
  toString: (c: Call, p: ChPrinter) => p.cast(c.args[0]!, T.String),
  toInt: (c, p) => p.cast(c.args[0]!, T.Int),
  toFloat: (c, p) => p.cast(c.args[0]!, T.Float),
  toDecimal: (c, p) => p.cast(c.args[0]!, T.Float),
  toUUID: (c, p) => p.cast(c.args[0]!, T.UUID),
  toBool: (c, p) => p.cast(c.args[0]!, T.Bool),
  toDate: (c, p) =>
    c.args[1] ? `toDate(${p.cast(c.args[0]!, T.DateTime)}, ${arg(c, p, 1)})` : p.cast(c.args[0]!, T.Date),
  toDateTime: (c, p) => p.cast(c.args[0]!, T.DateTime),
  parseDateTimeBestEffort: (c, p) => p.cast(c.args[0]!, T.DateTime),
  // Results are always shown in the project's zone; the instant is unchanged.
  toTimeZone: (c, p) => arg(c, p, 0),
  toJSONString: same("toJSONString"),
  toIntOrZero: (c, p) => `ifNull(${p.cast(c.args[0]!, T.Int)}, 0)`,
  toFloatOrZero: (c, p) => `ifNull(${p.cast(c.args[0]!, T.Float)}, 0)`,
  toFloatOrDefault: (c, p) => `ifNull(${p.cast(c.args[0]!, T.Float)}, toFloat64(${arg(c, p, 1)}))`,
  toTypeName: (c, p) => p.param(clickhouseName(c.args[0]!.type, p.timezone), "String"),

  now: (_, p) => `now64(6, ${p.tz})`,
  // As in ClickHouse's own, today() is the server's (UTC) day, not the project's.
  today: () => "toDate(now(), 'UTC')",
  yesterday: () => "(toDate(now(), 'UTC') - 1)",
  ...Object.fromEntries(DATE_PARTS.map((name) => [name, same(name)])),
  ...Object.fromEntries(START_OF.map((name) => [name, (c: Call, p: ChPrinter) => `${name}(${arg(c, p, 0)})`])),
  // Mode 0 (the default) starts weeks on Sunday, mode 1 on Monday.
  toStartOfWeek: (c, p) => {
    const mode = c.args[1]?.kind === "const" ? Number(c.args[1].value) : 0
    return `toStartOfWeek(${arg(c, p, 0)}, ${mode % 2 === 1 ? 1 : 0})`
  },
  toStartOfInterval: same("toStartOfInterval"),
  dateTrunc: (c, p) => truncate(unitOf(c.args[0]), arg(c, p, 1), p),
  dateDiff: (c, p) => `dateDiff('${unitOf(c.args[0])}', ${arg(c, p, 1)}, ${arg(c, p, 2)})`,
  dateAdd: (c, p) => shift(arg(c, p, 2), arg(c, p, 1), unitOf(c.args[0]), "+"),
  dateSub: (c, p) => shift(arg(c, p, 2), arg(c, p, 1), unitOf(c.args[0]), "-"),
  ...Object.fromEntries(
    ["Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"].flatMap((u) => [
      [`add${u}s`, same(`add${u}s`)],
      [`subtract${u}s`, same(`subtract${u}s`)],
      [`toInterval${u}`, same(`toInterval${u}`)]
    ])
  ),
  toUnixTimestamp: (c, p) => p.cast(c.args[0]!, T.Int),
  fromUnixTimestamp: (c, p) => `toDateTime64(toFloat64(${arg(c, p, 0)}), 6, ${p.tz})`,
  formatDateTime,

  // ClickHouse's length counts bytes of a string.
  length: same("length"),
  empty: (c, p) => `ifNull(empty(${arg(c, p, 0)}), true)`,
  notEmpty: (c, p) => `ifNull(notEmpty(${arg(c, p, 0)}), false)`,
  lower: same("lowerUTF8"),
  upper: same("upperUTF8"),
  lowerUTF8: same("lowerUTF8"),
  upperUTF8: same("upperUTF8"),
  concat: (c, p) => `concat(${c.args.map((a) => p.cast(a, T.String)).join(", ")})`,
  substring: same("substringUTF8"),
  left: same("leftUTF8"),
  right: same("rightUTF8"),
  trim: same("trimBoth"),
  trimLeft: same("trimLeft"),
  trimRight: same("trimRight"),
  reverse: (c, p) =>
    c.args[0]!.type.kind === "Array" ? `arrayReverse(${arg(c, p, 0)})` : `reverseUTF8(${arg(c, p, 0)})`,
  repeat: (c, p) => `repeat(${arg(c, p, 0)}, toUInt64(greatest(${arg(c, p, 1)}, 0)))`,
  leftPad: same("leftPadUTF8"),
  rightPad: same("rightPadUTF8"),
  position: (c, p) => `toInt64(positionUTF8(${arg(c, p, 0)}, ${arg(c, p, 1)}))`,
  positionCaseInsensitive: (c, p) => `toInt64(positionCaseInsensitiveUTF8(${arg(c, p, 0)}, ${arg(c, p, 1)}))`,
  startsWith: same("startsWith"),
  endsWith: same("endsWith"),
  replaceAll: same("replaceAll"),
  replaceOne: same("replaceOne"),
  replaceRegexpAll: same("replaceRegexpAll"),
  replaceRegexpOne: same("replaceRegexpOne"),
  match: same("match"),
  extract: (c, p) => orEmpty(`extract(${arg(c, p, 0)}, ${arg(c, p, 1)})`),
  like: (c, p) => p.compare("like", c.args[0]!, c.args[1]!),
  ilike: (c, p) => p.compare("ilike", c.args[0]!, c.args[1]!),
  notLike: (c, p) => p.compare("not like", c.args[0]!, c.args[1]!),
  notILike: (c, p) => p.compare("not ilike", c.args[0]!, c.args[1]!),
  // Postgres splits NULL and '' into no parts at all.
  splitByChar: (c, p) =>
    `if(ifNull(${arg(c, p, 1)}, '') = '', CAST([], 'Array(String)'), splitByString(${arg(c, p, 0)}, assumeNotNull(${arg(c, p, 1)})))`,
  splitByString: (c, p) =>
    `if(ifNull(${arg(c, p, 1)}, '') = '', CAST([], 'Array(String)'), splitByString(${arg(c, p, 0)}, assumeNotNull(${arg(c, p, 1)})))`,
  base64Encode: same("base64Encode"),
  base64Decode: same("base64Decode"),

  domain: (c, p) => group(arg(c, p, 0), "^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#:]*)"),
  path: (c, p) => orEmpty(group(arg(c, p, 0), "^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//[^/?#]*([^?#]*)")),
  protocol: (c, p) => orEmpty(group(arg(c, p, 0), "^([a-zA-Z][a-zA-Z0-9+.-]*):")),
  extractURLParameter: (c, p) => {
    const name = constantText(c.args[1], "The parameter name").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    const pattern = p.param(`[?&]${name}=([^&#]*)`, "String")
    return orEmpty(`if(match(${arg(c, p, 0)}, ${pattern}), extract(${arg(c, p, 0)}, ${pattern}), NULL)`)
  },
  cutQueryString: (c, p) => `replaceRegexpOne(${arg(c, p, 0)}, '\\\\?[^#]*', '')`,

  if: alike("if", (i) => i === 0),
  multiIf: alike("multiIf", (i, count) => i % 2 === 0 && i < count - 1),
  coalesce: alike("coalesce"),
  ifNull: alike("coalesce"),
  nullIf: same("nullIf"),
  greatest: alike("greatest"),
  least: alike("least"),

  intDiv: (c, p) => `toInt64(intDivOrNull(${arg(c, p, 0)}, ${arg(c, p, 1)}))`,
  abs: same("abs"),
  sign: (c, p) => `toInt64(sign(${arg(c, p, 0)}))`,
  round: same("round"),
  floor: same("floor"),
  ceil: same("ceil"),
  sqrt: (c, p) => `sqrt(${float(c, p, 0)})`,
  exp: (c, p) => `exp(${float(c, p, 0)})`,
  log: (c, p) => `log(nullIf(${float(c, p, 0)}, 0))`,
  log2: (c, p) => `log2(nullIf(${float(c, p, 0)}, 0))`,
  log10: (c, p) => `log10(nullIf(${float(c, p, 0)}, 0))`,
  pow: (c, p) => `pow(${float(c, p, 0)}, ${float(c, p, 1)})`,
  pi: () => "pi()",

  array: (c, p) =>
    c.args.length === 0
      ? p.emptyArray(c.type)
      : `[${widened(c.type.kind === "Array" ? c.type.of : c.type, c.args, p).join(", ")}]`,
  tuple: same("tuple"),
  // As text, as the Postgres dialect gives it.
  tupleElement: (c, p) => `toString(tupleElement(${arg(c, p, 0)}, ${arg(c, p, 1)}))`,
  arrayJoin: same("arrayJoin"),
  has: (c, p) => `ifNull(has(${arg(c, p, 0)}, ${arg(c, p, 1)}), false)`,
  hasAny: same("hasAny"),
  hasAll: same("hasAll"),
  indexOf: (c, p) => `toInt64(indexOf(${arg(c, p, 0)}, ${arg(c, p, 1)}))`,
  arrayElement: (c, p) => p.element(arg(c, p, 0), c.args[1]!),
  arraySlice: same("arraySlice"),
  arrayConcat: same("arrayConcat"),
  arrayDistinct: same("arrayDistinct"),
  arraySort: same("arraySort"),
  arrayReverse: same("arrayReverse"),
  arraySum: same("arraySum"),
  arrayMin: (c, p) => `if(empty(${arg(c, p, 0)}), NULL, arrayMin(${arg(c, p, 0)}))`,
  arrayMax: (c, p) => `if(empty(${arg(c, p, 0)}), NULL, arrayMax(${arg(c, p, 0)}))`,
  arrayStringConcat: (c, p) => `arrayStringConcat(${arg(c, p, 0)}, ${c.args[1] ? arg(c, p, 1) : "''"})`,
  arrayMap: withLambda("arrayMap"),
  arrayFilter: withLambda("arrayFilter"),
  arrayExists: withLambda("arrayExists"),
  arrayAll: withLambda("arrayAll"),
  arrayCount: (c, p) =>
    c.args.length === 1
      ? `toInt64(arrayCount(zq_e -> ifNull(toString(zq_e) NOT IN ('0', 'false', ''), false), ${arg(c, p, 0)}))`
      : `toInt64(${withLambda("arrayCount")(c, p)})`,
  range: (c, p) => {
    const a = args(c, p)
    const [start, end, step] = a.length === 1 ? ["0", a[0]!, "1"] : [a[0]!, a[1]!, a[2] ?? "1"]
    return `range(toInt64(${start}), toInt64(${end}), toInt64(${step}))`
  },

  // ClickHouse answers an empty value rather than NULL when the key is missing or of another type.
  JSONExtractString: (c, p) => `ifNull(JSONExtractString(${jsonArgs(c, p)}), '')`,
  JSONExtractInt: (c, p) =>
    `ifNull(multiIf(${jsonType(c, p)} IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractInt(${jsonArgs(c, p)}), 0), 0)`,
  JSONExtractFloat: (c, p) =>
    `ifNull(multiIf(${jsonType(c, p)} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${jsonArgs(c, p)}), 0), 0)`,
  JSONExtractBool: (c, p) =>
    `ifNull(multiIf(${jsonType(c, p)} = 'Bool', JSONExtractBool(${jsonArgs(c, p)}) = 1, ${jsonType(c, p)} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${jsonArgs(c, p)}) != 0, false), false)`,
  JSONExtractRaw: (c, p) => `ifNull(JSONExtractRaw(${jsonArgs(c, p)}), '')`,
  JSONExtractArrayRaw: (c, p) => `JSONExtractArrayRaw(${jsonArgs(c, p, true)})`,
  JSONExtractKeys: (c, p) => `JSONExtractKeys(${jsonArgs(c, p, true)})`,
  JSONHas: (c, p) => `ifNull(JSONHas(${jsonArgs(c, p)}), false)`,
  JSONLength: (c, p) => `toInt64(ifNull(JSONLength(${jsonArgs(c, p)}), 0))`,

  count: aggregate((c, p, a) =>
    c.args.length === 0 ? a.call("count", []) : a.call("count", [arg(c, p, 0)], { distinct: c.distinct })
  ),
  countIf: aggregate(
    (c, p, a) =>
      c.args.length === 1 ? a.call("count", []) : a.call("count", [arg(c, p, 0)], { distinct: c.distinct }),
    true
  ),
  sum: aggregate(sumOf),
  sumIf: aggregate((c, p, a) => `ifNull(${sumOf(c, p, a)}, 0)`, true),
  avg: aggregate((c, p, a) => a.call("avg", [arg(c, p, 0)], { distinct: c.distinct, orNull: true })),
  avgIf: aggregate((c, p, a) => a.call("avg", [arg(c, p, 0)], { orNull: true }), true),
  min: aggregate((c, p, a) => a.call("min", [arg(c, p, 0)], { orNull: true })),
  minIf: aggregate((c, p, a) => a.call("min", [arg(c, p, 0)], { orNull: true }), true),
  max: aggregate((c, p, a) => a.call("max", [arg(c, p, 0)], { orNull: true })),
  maxIf: aggregate((c, p, a) => a.call("max", [arg(c, p, 0)], { orNull: true }), true),
  uniq: aggregate((c, p, a) => uniq(c, p, c.args.length, a)),
  uniqIf: aggregate((c, p, a) => uniq(c, p, 1, a), true),
  uniqExact: aggregate((c, p, a) => uniq(c, p, c.args.length, a)),
  uniqExactIf: aggregate((c, p, a) => uniq(c, p, 1, a), true),
  any: aggregate((c, p, a) => a.call("any", [arg(c, p, 0)], { orNull: true })),
  anyIf: aggregate((c, p, a) => a.call("any", [arg(c, p, 0)], { orNull: true }), true),
  anyLast: aggregate((c, p, a) => a.call("anyLast", [arg(c, p, 0)], { orNull: true })),
  argMin: aggregate(pick("argMin")),
  argMax: aggregate(pick("argMax")),
  argMinIf: aggregate(pick("argMin"), true),
  argMaxIf: aggregate(pick("argMax"), true),
  median: aggregate((c, p, a) => quantile(c, p, "0.5", a)),
  medianIf: aggregate((c, p, a) => quantile(c, p, "0.5", a), true),
  quantile: aggregate((c, p, a) => quantile(c, p, p.expr(c.params[0]!), a)),
  quantileIf: aggregate((c, p, a) => quantile(c, p, p.expr(c.params[0]!), a), true),
  quantiles: aggregate((c, p, a) =>
    a.call("quantilesExactInclusive", [float(c, p, 0)], { params: c.params.map((x) => p.expr(x)) })
  ),
  // ClickHouse's groupArray skips NULLs and answers [] for no rows.
  groupArray: aggregate((c, p, a) => a.call("groupArray", [arg(c, p, 0)])),
  groupArrayIf: aggregate((c, p, a) => a.call("groupArray", [arg(c, p, 0)]), true),
  groupUniqArray: aggregate((c, p, a) => a.call("groupUniqArray", [arg(c, p, 0)])),
  topK: aggregate((c, p, a) => a.call("topK", [arg(c, p, 0)], { params: c.params.map((x) => p.expr(x)) })),
  stddevPop: aggregate((c, p, a) => finite(a.call("stddevPop", [float(c, p, 0)]))),
  stddevSamp: aggregate((c, p, a) => finite(a.call("stddevSamp", [float(c, p, 0)]))),
  varPop: aggregate((c, p, a) => finite(a.call("varPop", [float(c, p, 0)]))),
  varSamp: aggregate((c, p, a) => finite(a.call("varSamp", [float(c, p, 0)]))),
  corr: aggregate((c, p, a) => finite(a.call("corr", [float(c, p, 0), float(c, p, 1)]))),
  covarPop: aggregate((c, p, a) => finite(a.call("covarPop", [float(c, p, 0), float(c, p, 1)]))),
  covarSamp: aggregate((c, p, a) => finite(a.call("covarSamp", [float(c, p, 0), float(c, p, 1)]))),
  avgWeighted: aggregate((c, p, a) => finite(a.call("avgWeighted", [float(c, p, 0), float(c, p, 1)]))),

  row_number: windowed(() => "row_number()"),
  rank: windowed(() => "rank()"),
  dense_rank: windowed(() => "dense_rank()"),
  percent_rank: windowed(() => "percent_rank()"),
  cume_dist: windowed(() => "cume_dist()"),
  ntile: windowed((c, p) => `ntile(toUInt64(${arg(c, p, 0)}))`),
  // NULL past the partition's edge, as in Postgres, rather than the type's default.
  lagInFrame: windowed(
    (c, p) => `lagInFrame(${[`toNullable(${arg(c, p, 0)})`, ...c.args.slice(1).map((a) => p.expr(a))].join(", ")})`
  ),
  leadInFrame: windowed(
    (c, p) => `leadInFrame(${[`toNullable(${arg(c, p, 0)})`, ...c.args.slice(1).map((a) => p.expr(a))].join(", ")})`
  ),
  first_value: windowed((c, p) => `first_value(${arg(c, p, 0)}) RESPECT NULLS`),
  last_value: windowed((c, p) => `last_value(${arg(c, p, 0)}) RESPECT NULLS`),
  nth_value: windowed(same("nth_value"))
}

import { isNumeric, isTemporal, nullable, T, unify, type ZType } from "./types.js"

// The functions ZedQL allows, with ClickHouse's names: arity, parameters (as in `quantile(0.9)(x)`)
// and result type. Anything not listed is refused. How each is written in SQL is a dialect's
// business (postgres/functions.ts); a test holds every signature to having a printer.

export interface Signature {
  readonly minArgs: number
  readonly maxArgs: number
  readonly minParams?: number
  readonly maxParams?: number
  /** Aggregates may not nest, and make their select an aggregation. */
  readonly aggregate?: boolean
  /** Only valid with OVER. */
  readonly windowOnly?: boolean
  /** Arguments read as they are: typed properties are not cast inside (toFloatOrZero…). */
  readonly rawArgs?: boolean
  /** Which arguments are lambdas `x -> …`, and what their parameters are bound to. */
  readonly lambda?: (argTypes: ReadonlyArray<ZType>) => ReadonlyArray<ZType>
  readonly returns: (args: ReadonlyArray<ZType>, params: ReadonlyArray<ZType>) => ZType
}

const fixed = (type: ZType) => () => type
const nullableIfAny = (type: ZType) => (args: ReadonlyArray<ZType>) =>
  nullable(
    type,
    args.some((a) => a.nullable)
  )
const first = (args: ReadonlyArray<ZType>) => args[0] ?? T.Unknown
const elementOf = (type: ZType | undefined): ZType => (type?.kind === "Array" ? type.of : T.Unknown)
const elementsOf = (args: ReadonlyArray<ZType>) => args.slice(1).map(elementOf)
const widest = (args: ReadonlyArray<ZType>) => args.reduce((a, b) => unify(a, b))
const numberOf = (args: ReadonlyArray<ZType>) => (args.every((a) => a.kind === "Int") ? T.Int : T.Float)

const fn = (
  minArgs: number,
  maxArgs: number,
  returns: Signature["returns"],
  extra: Partial<Signature> = {}
): Signature => ({
  minArgs,
  maxArgs,
  returns,
  ...extra
})
const agg = (
  minArgs: number,
  maxArgs: number,
  returns: Signature["returns"],
  extra: Partial<Signature> = {}
): Signature => fn(minArgs, maxArgs, returns, { aggregate: true, ...extra })

const MANY = Number.POSITIVE_INFINITY

const dateParts = [
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
const startOf = [
  "toStartOfMinute",
  "toStartOfFiveMinutes",
  "toStartOfTenMinutes",
  "toStartOfFifteenMinutes",
  "toStartOfHour",
  "toStartOfDay"
]
const startOfDate = [
  "toStartOfWeek",
  "toMonday",
  "toStartOfMonth",
  "toStartOfQuarter",
  "toStartOfYear",
  "toStartOfISOYear"
]
export const INTERVAL_UNITS = ["Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"] as const

const dateShift = (fnName: string): Signature =>
  fn(2, 2, (args) =>
    nullable(
      first(args).kind === "Date" && !/Hours|Minutes|Seconds/.test(fnName) ? T.Date : T.DateTime,
      first(args).nullable
    )
  )

export const SIGNATURES: Readonly<Record<string, Signature>> = {
  // Conversions; the `OrNull` behaviour is the default, as in ZedQL.
  toString: fn(1, 1, nullableIfAny(T.String)),
  toInt: fn(1, 1, () => nullable(T.Int)),
  toFloat: fn(1, 1, () => nullable(T.Float)),
  toDecimal: fn(1, 2, () => nullable(T.Float)),
  toUUID: fn(1, 1, () => nullable(T.UUID)),
  toBool: fn(1, 1, () => nullable(T.Bool)),
  toDate: fn(1, 2, () => nullable(T.Date)),
  toDateTime: fn(1, 2, () => nullable(T.DateTime)),
  parseDateTimeBestEffort: fn(1, 2, () => nullable(T.DateTime)),
  toTimeZone: fn(2, 2, (args) => nullable(T.DateTime, first(args).nullable)),
  toJSONString: fn(1, 1, fixed(T.String)),
  toIntOrZero: fn(1, 1, fixed(T.Int), { rawArgs: true }),
  toFloatOrZero: fn(1, 1, fixed(T.Float), { rawArgs: true }),
  toFloatOrDefault: fn(2, 2, fixed(T.Float), { rawArgs: true }),
  toTypeName: fn(1, 1, fixed(T.String)),

  // Dates and times, in the project's time zone.
  now: fn(0, 0, fixed(T.DateTime)),
  today: fn(0, 0, fixed(T.Date)),
  yesterday: fn(0, 0, fixed(T.Date)),
  ...Object.fromEntries(dateParts.map((name) => [name, fn(1, 1, nullableIfAny(T.Int))])),
  ...Object.fromEntries(startOf.map((name) => [name, fn(1, 1, nullableIfAny(T.DateTime))])),
  ...Object.fromEntries(startOfDate.map((name) => [name, fn(1, 2, nullableIfAny(T.Date))])),
  toStartOfInterval: fn(2, 2, nullableIfAny(T.DateTime)),
  dateTrunc: fn(2, 3, (args) => nullable(T.DateTime, args[1]?.nullable ?? false)),
  dateDiff: fn(3, 3, nullableIfAny(T.Int)),
  dateAdd: fn(3, 3, (args) => nullable(T.DateTime, args[2]?.nullable ?? false)),
  dateSub: fn(3, 3, (args) => nullable(T.DateTime, args[2]?.nullable ?? false)),
  ...Object.fromEntries(
    INTERVAL_UNITS.flatMap((u) => [
      [`add${u}s`, dateShift(`add${u}s`)],
      [`subtract${u}s`, dateShift(`subtract${u}s`)],
      [`toInterval${u}`, fn(1, 1, fixed(T.Interval))]
    ])
  ),
  toUnixTimestamp: fn(1, 1, nullableIfAny(T.Int)),
  fromUnixTimestamp: fn(1, 1, nullableIfAny(T.DateTime)),
  formatDateTime: fn(2, 3, nullableIfAny(T.String)),

  // Strings.
  length: fn(1, 1, nullableIfAny(T.Int)),
  empty: fn(1, 1, fixed(T.Bool)),
  notEmpty: fn(1, 1, fixed(T.Bool)),
  lower: fn(1, 1, nullableIfAny(T.String)),
  upper: fn(1, 1, nullableIfAny(T.String)),
  lowerUTF8: fn(1, 1, nullableIfAny(T.String)),
  upperUTF8: fn(1, 1, nullableIfAny(T.String)),
  concat: fn(1, MANY, fixed(T.String)),
  substring: fn(2, 3, nullableIfAny(T.String)),
  left: fn(2, 2, nullableIfAny(T.String)),
  right: fn(2, 2, nullableIfAny(T.String)),
  trim: fn(1, 1, nullableIfAny(T.String)),
  trimLeft: fn(1, 1, nullableIfAny(T.String)),
  trimRight: fn(1, 1, nullableIfAny(T.String)),
  reverse: fn(1, 1, (args) => first(args)),
  repeat: fn(2, 2, nullableIfAny(T.String)),
  leftPad: fn(2, 3, nullableIfAny(T.String)),
  rightPad: fn(2, 3, nullableIfAny(T.String)),
  position: fn(2, 2, nullableIfAny(T.Int)),
  positionCaseInsensitive: fn(2, 2, nullableIfAny(T.Int)),
  startsWith: fn(2, 2, nullableIfAny(T.Bool)),
  endsWith: fn(2, 2, nullableIfAny(T.Bool)),
  replaceAll: fn(3, 3, nullableIfAny(T.String)),
  replaceOne: fn(3, 3, nullableIfAny(T.String)),
  replaceRegexpAll: fn(3, 3, nullableIfAny(T.String)),
  replaceRegexpOne: fn(3, 3, nullableIfAny(T.String)),
  match: fn(2, 2, nullableIfAny(T.Bool)),
  extract: fn(2, 2, nullableIfAny(T.String)),
  like: fn(2, 2, nullableIfAny(T.Bool)),
  ilike: fn(2, 2, nullableIfAny(T.Bool)),
  notLike: fn(2, 2, nullableIfAny(T.Bool)),
  notILike: fn(2, 2, nullableIfAny(T.Bool)),
  splitByChar: fn(2, 2, fixed(T.array(T.String))),
  splitByString: fn(2, 2, fixed(T.array(T.String))),
  base64Encode: fn(1, 1, nullableIfAny(T.String)),
  base64Decode: fn(1, 1, nullableIfAny(T.String)),

  // URLs.
  domain: fn(1, 1, nullableIfAny(T.String)),
  path: fn(1, 1, nullableIfAny(T.String)),
  protocol: fn(1, 1, nullableIfAny(T.String)),
  extractURLParameter: fn(2, 2, nullableIfAny(T.String)),
  cutQueryString: fn(1, 1, nullableIfAny(T.String)),

  // Conditions and nulls.
  if: fn(3, 3, (args) => unify(args[1]!, args[2]!)),
  multiIf: fn(3, MANY, (args) => widest(args.filter((_, i) => i % 2 === 1 || i === args.length - 1))),
  coalesce: fn(1, MANY, (args) =>
    nullable(
      widest(args),
      args.every((a) => a.nullable)
    )
  ),
  ifNull: fn(2, 2, (args) => nullable(unify(args[0]!, args[1]!), args[1]!.nullable)),
  nullIf: fn(2, 2, (args) => nullable(first(args))),
  isNull: fn(1, 1, fixed(T.Bool)),
  isNotNull: fn(1, 1, fixed(T.Bool)),
  assumeNotNull: fn(1, 1, (args) => nullable(first(args), false)),
  greatest: fn(1, MANY, widest),
  least: fn(1, MANY, widest),
  equals: fn(2, 2, fixed(T.Bool)),
  notEquals: fn(2, 2, fixed(T.Bool)),
  less: fn(2, 2, fixed(T.Bool)),
  greater: fn(2, 2, fixed(T.Bool)),
  lessOrEquals: fn(2, 2, fixed(T.Bool)),
  greaterOrEquals: fn(2, 2, fixed(T.Bool)),
  and: fn(2, MANY, fixed(T.Bool)),
  or: fn(2, MANY, fixed(T.Bool)),
  not: fn(1, 1, fixed(T.Bool)),
  in: fn(2, 2, fixed(T.Bool)),
  notIn: fn(2, 2, fixed(T.Bool)),

  // Numbers.
  plus: fn(2, 2, (args) =>
    isTemporal(first(args))
      ? first(args)
      : nullable(
          numberOf(args),
          args.some((a) => a.nullable)
        )
  ),
  minus: fn(2, 2, (args) =>
    isTemporal(first(args))
      ? first(args)
      : nullable(
          numberOf(args),
          args.some((a) => a.nullable)
        )
  ),
  multiply: fn(2, 2, (args) =>
    nullable(
      numberOf(args),
      args.some((a) => a.nullable)
    )
  ),
  divide: fn(2, 2, nullableIfAny(T.Float)),
  intDiv: fn(2, 2, nullableIfAny(T.Int)),
  modulo: fn(2, 2, (args) =>
    nullable(
      numberOf(args),
      args.some((a) => a.nullable)
    )
  ),
  negate: fn(1, 1, first),
  abs: fn(1, 1, first),
  sign: fn(1, 1, nullableIfAny(T.Int)),
  round: fn(1, 2, (args) => nullable(args.length > 1 ? T.Float : numberOf(args), first(args).nullable)),
  floor: fn(1, 2, (args) => nullable(args.length > 1 ? T.Float : numberOf(args), first(args).nullable)),
  ceil: fn(1, 2, (args) => nullable(args.length > 1 ? T.Float : numberOf(args), first(args).nullable)),
  sqrt: fn(1, 1, nullableIfAny(T.Float)),
  exp: fn(1, 1, nullableIfAny(T.Float)),
  log: fn(1, 1, nullableIfAny(T.Float)),
  log2: fn(1, 1, nullableIfAny(T.Float)),
  log10: fn(1, 1, nullableIfAny(T.Float)),
  pow: fn(2, 2, nullableIfAny(T.Float)),
  pi: fn(0, 0, fixed(T.Float)),

  // Arrays and tuples.
  array: fn(0, MANY, (args) => T.array(args.length === 0 ? T.Unknown : widest(args))),
  tuple: fn(1, MANY, (args) => T.tuple(args)),
  tupleElement: fn(2, 2, () => T.Unknown),
  arrayJoin: fn(1, 1, (args) => elementOf(first(args))),
  has: fn(2, 2, fixed(T.Bool)),
  hasAny: fn(2, 2, fixed(T.Bool)),
  hasAll: fn(2, 2, fixed(T.Bool)),
  indexOf: fn(2, 2, fixed(T.Int)),
  arrayElement: fn(2, 2, (args) => nullable(elementOf(first(args)))),
  arraySlice: fn(2, 3, first),
  arrayConcat: fn(1, MANY, first),
  arrayDistinct: fn(1, 1, first),
  arraySort: fn(1, 1, first),
  arrayReverse: fn(1, 1, first),
  arraySum: fn(1, 1, (args) => nullable(isNumeric(elementOf(first(args))) ? elementOf(first(args)) : T.Float, false)),
  arrayMin: fn(1, 1, (args) => nullable(elementOf(first(args)))),
  arrayMax: fn(1, 1, (args) => nullable(elementOf(first(args)))),
  arrayStringConcat: fn(1, 2, fixed(T.String)),
  // A lambda's parameters range over the elements of the arrays after it, side by side.
  arrayMap: fn(2, MANY, (args) => T.array(args[0]!), { lambda: elementsOf }),
  arrayFilter: fn(2, MANY, (args) => args[1]!, { lambda: elementsOf }),
  arrayExists: fn(2, MANY, fixed(T.Bool), { lambda: elementsOf }),
  arrayAll: fn(2, MANY, fixed(T.Bool), { lambda: elementsOf }),
  arrayCount: fn(1, MANY, fixed(T.Int), { lambda: elementsOf }),
  range: fn(1, 3, fixed(T.array(T.Int))),

  // JSON (also over `properties`).
  JSONExtractString: fn(2, MANY, () => nullable(T.String)),
  JSONExtractInt: fn(2, MANY, () => nullable(T.Int)),
  JSONExtractFloat: fn(2, MANY, () => nullable(T.Float)),
  JSONExtractBool: fn(2, MANY, () => nullable(T.Bool)),
  JSONExtractRaw: fn(2, MANY, () => nullable(T.String)),
  JSONExtractArrayRaw: fn(1, MANY, () => nullable(T.array(T.String))),
  JSONExtractKeys: fn(1, MANY, () => T.array(T.String)),
  JSONHas: fn(2, MANY, fixed(T.Bool)),
  JSONLength: fn(1, MANY, () => nullable(T.Int)),

  // Aggregates.
  count: agg(0, 1, fixed(T.Int)),
  countIf: agg(1, 2, fixed(T.Int)),
  sum: agg(1, 1, (args) => nullable(first(args).kind === "Int" ? T.Int : T.Float)),
  sumIf: agg(2, 2, (args) => nullable(first(args).kind === "Int" ? T.Int : T.Float)),
  avg: agg(1, 1, () => nullable(T.Float)),
  avgIf: agg(2, 2, () => nullable(T.Float)),
  min: agg(1, 1, (args) => nullable(first(args))),
  minIf: agg(2, 2, (args) => nullable(first(args))),
  max: agg(1, 1, (args) => nullable(first(args))),
  maxIf: agg(2, 2, (args) => nullable(first(args))),
  uniq: agg(1, MANY, fixed(T.Int)),
  uniqIf: agg(2, 2, fixed(T.Int)),
  uniqExact: agg(1, MANY, fixed(T.Int)),
  uniqExactIf: agg(2, 2, fixed(T.Int)),
  any: agg(1, 1, (args) => nullable(first(args))),
  anyIf: agg(2, 2, (args) => nullable(first(args))),
  anyLast: agg(1, 1, (args) => nullable(first(args))),
  argMin: agg(2, 2, (args) => nullable(first(args))),
  argMax: agg(2, 2, (args) => nullable(first(args))),
  argMinIf: agg(3, 3, (args) => nullable(first(args))),
  argMaxIf: agg(3, 3, (args) => nullable(first(args))),
  median: agg(1, 1, () => nullable(T.Float)),
  medianIf: agg(2, 2, () => nullable(T.Float)),
  quantile: agg(1, 1, () => nullable(T.Float), { minParams: 1, maxParams: 1 }),
  quantileIf: agg(2, 2, () => nullable(T.Float), { minParams: 1, maxParams: 1 }),
  quantiles: agg(1, 1, () => T.array(nullable(T.Float)), { minParams: 1, maxParams: 20 }),
  groupArray: agg(1, 1, (args) => T.array(nullable(first(args), false))),
  groupArrayIf: agg(2, 2, (args) => T.array(nullable(first(args), false))),
  groupUniqArray: agg(1, 1, (args) => T.array(nullable(first(args), false))),
  topK: agg(1, 1, (args) => T.array(nullable(first(args), false)), { minParams: 1, maxParams: 1 }),
  stddevPop: agg(1, 1, () => nullable(T.Float)),
  stddevSamp: agg(1, 1, () => nullable(T.Float)),
  varPop: agg(1, 1, () => nullable(T.Float)),
  varSamp: agg(1, 1, () => nullable(T.Float)),
  corr: agg(2, 2, () => nullable(T.Float)),
  covarPop: agg(2, 2, () => nullable(T.Float)),
  covarSamp: agg(2, 2, () => nullable(T.Float)),
  avgWeighted: agg(2, 2, () => nullable(T.Float)),

  // Window functions.
  row_number: fn(0, 0, fixed(T.Int), { windowOnly: true }),
  rank: fn(0, 0, fixed(T.Int), { windowOnly: true }),
  dense_rank: fn(0, 0, fixed(T.Int), { windowOnly: true }),
  percent_rank: fn(0, 0, fixed(T.Float), { windowOnly: true }),
  cume_dist: fn(0, 0, fixed(T.Float), { windowOnly: true }),
  ntile: fn(1, 1, fixed(T.Int), { windowOnly: true }),
  lagInFrame: fn(1, 3, (args) => nullable(first(args)), { windowOnly: true }),
  leadInFrame: fn(1, 3, (args) => nullable(first(args)), { windowOnly: true }),
  first_value: fn(1, 1, (args) => nullable(first(args)), { windowOnly: true }),
  last_value: fn(1, 1, (args) => nullable(first(args)), { windowOnly: true }),
  nth_value: fn(2, 2, (args) => nullable(first(args)), { windowOnly: true })
}

/** Other names for the same functions (ClickHouse's and Postgres-style ones ZedQL accepts). */
export const ALIASES: Readonly<Record<string, string>> = {
  date_diff: "dateDiff",
  date_add: "dateAdd",
  date_sub: "dateSub",
  date_trunc: "dateTrunc",
  lag: "lagInFrame",
  lead: "leadInFrame",
  countDistinct: "uniqExact",
  replace: "replaceAll",
  replaceRegexp: "replaceRegexpAll",
  locate: "position",
  substr: "substring",
  lpad: "leftPad",
  rpad: "rightPad",
  ltrim: "trimLeft",
  rtrim: "trimRight",
  power: "pow",
  ln: "log",
  ceiling: "ceil",
  array_agg: "groupArray",
  arrayJoinToString: "arrayStringConcat",
  current_timestamp: "now",
  current_date: "today",
  toFloat64OrNull: "toFloat",
  toInt64OrNull: "toInt",
  parseDateTime64BestEffortOrNull: "parseDateTimeBestEffort",
  toDateTime64: "toDateTime",
  stddev: "stddevSamp",
  variance: "varSamp"
}

/** Names ClickHouse accepts in any case. */
const CASE_INSENSITIVE = new Set([
  "count",
  "min",
  "max",
  "sum",
  "avg",
  "if",
  "not",
  "now",
  "least",
  "greatest",
  "coalesce",
  "abs",
  "round",
  "floor",
  "ceil",
  "lower",
  "upper",
  "length",
  "concat",
  "substring",
  "trim"
])
const lowerCased = new Map(
  Object.keys(SIGNATURES)
    .filter((n) => CASE_INSENSITIVE.has(n))
    .map((n) => [n.toLowerCase(), n])
)

/** The canonical name of a function as written, if ZedQL knows it. */
export const canonicalName = (name: string): string | undefined => {
  // Own keys only: `toString` and `constructor` are on every object.
  const direct = Object.hasOwn(ALIASES, name) ? ALIASES[name]! : name
  if (Object.hasOwn(SIGNATURES, direct)) return direct
  return lowerCased.get(name.toLowerCase())
}

/** Known names close to an unknown one, for "Perhaps you meant …". */
export const suggest = (name: string): string | undefined => {
  const target = name.toLowerCase()
  let best: { name: string; distance: number } | undefined
  for (const candidate of [...Object.keys(SIGNATURES), ...Object.keys(ALIASES)]) {
    const distance = levenshtein(target, candidate.toLowerCase())
    if (distance <= Math.max(2, Math.floor(target.length / 4)) && (best === undefined || distance < best.distance))
      best = { name: candidate, distance }
  }
  return best?.name
}

const levenshtein = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

// ZedQL's types: what the resolver knows about every expression. They decide how values compare
// (a string against a date is parsed as a date), how results are formatted, and the `types` the
// query API reports (in ClickHouse's names, as PostHog does).

export type ScalarKind =
  | "String"
  | "Int"
  | "Float"
  | "Bool"
  | "DateTime"
  | "Date"
  | "UUID"
  | "JSON"
  | "Interval"
  | "Null"
  | "Unknown"

export type ZType =
  | { readonly kind: ScalarKind; readonly nullable: boolean }
  | { readonly kind: "Array"; readonly of: ZType; readonly nullable: boolean }
  | { readonly kind: "Tuple"; readonly of: ReadonlyArray<ZType>; readonly nullable: boolean }

const scalar = (kind: ScalarKind, nullable = false): ZType => ({ kind, nullable })

export const T = {
  String: scalar("String"),
  Int: scalar("Int"),
  Float: scalar("Float"),
  Bool: scalar("Bool"),
  DateTime: scalar("DateTime"),
  Date: scalar("Date"),
  UUID: scalar("UUID"),
  JSON: scalar("JSON"),
  Interval: scalar("Interval"),
  Null: scalar("Null", true),
  Unknown: scalar("Unknown", true),
  array: (of: ZType): ZType => ({ kind: "Array", of, nullable: false }),
  tuple: (of: ReadonlyArray<ZType>): ZType => ({ kind: "Tuple", of, nullable: false })
} as const

export const nullable = (type: ZType, is = true): ZType => (type.nullable === is ? type : { ...type, nullable: is })

export const isNumeric = (type: ZType) => type.kind === "Int" || type.kind === "Float"
export const isTemporal = (type: ZType) => type.kind === "DateTime" || type.kind === "Date"

/** The wider of two types, for results mixing them (if/else branches, UNION columns, arrays). */
export const unify = (a: ZType, b: ZType): ZType => {
  const isNull = (t: ZType) => t.kind === "Null"
  if (isNull(a)) return nullable(b)
  if (isNull(b)) return nullable(a)
  const either = a.nullable || b.nullable
  if (a.kind === b.kind) {
    if (a.kind === "Array" && b.kind === "Array") return { kind: "Array", of: unify(a.of, b.of), nullable: either }
    return nullable(a, either)
  }
  if (isNumeric(a) && isNumeric(b)) return nullable(T.Float, either)
  if (isTemporal(a) && isTemporal(b)) return nullable(T.DateTime, either)
  return nullable(T.Unknown, either)
}

/** ClickHouse's name for a type, with the project's time zone on date-times. */
export const clickhouseName = (type: ZType, timezone: string): string => {
  const base = (() => {
    switch (type.kind) {
      case "String":
      case "JSON":
      case "Unknown":
        return "String"
      case "Int":
        return "Int64"
      case "Float":
        return "Float64"
      case "Bool":
        return "Bool"
      case "DateTime":
        return `DateTime64(6, '${timezone}')`
      case "Date":
        return "Date"
      case "UUID":
        return "UUID"
      case "Interval":
        return "IntervalSecond"
      case "Null":
        return "Nothing"
      case "Array":
        return `Array(${clickhouseName(type.of, timezone)})`
      case "Tuple":
        return `Tuple(${type.of.map((t) => clickhouseName(t, timezone)).join(", ")})`
    }
  })()
  // ClickHouse cannot wrap arrays and tuples in Nullable.
  return type.nullable && type.kind !== "Array" && type.kind !== "Tuple" ? `Nullable(${base})` : base
}

import { Effect, Schema } from "effect"
import { PropertyFilter } from "../filters/property.js"
import type { InsightPlan } from "../insights/plan.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import { PASSED_FIELDS } from "./nodeFields.js"
import { ZedQLQueryError, ZedQLSyntaxError } from "../zedql/errors.js"
import { DateBoundText, filterConditions, UnsupportedFilter } from "../zedql/filters.js"
import { canonicalName, SIGNATURES } from "../zedql/functions.js"
import { formatSelect } from "../zedql/format.js"
import { parseSelect } from "../zedql/parse.js"
import { QUERY_MAX_LIMIT } from "../zedql/compile.js"
import type { GrammarRefused } from "../grammar/pool.js"
import { IntIn } from "../schema/fields.js"

// PostHog's EventsQuery (the events table of its data tables): columns and ZedQL expressions over
// `events`, with conditions, an order and a page. It is planned into one ZedQL statement, run like
// an insight's plan; a select with aggregates is grouped by its other columns, as PostHog does.

const Strict = { onExcessProperty: "error" } as const

const Expressions = Schema.Array(Schema.String.pipe(Schema.minLength(1)))

export const EventsQueryNode = Schema.Struct({
  kind: Schema.Literal("EventsQuery"),
  select: Expressions.pipe(Schema.minItems(1)),
  where: Schema.optional(Schema.NullOr(Expressions)),
  orderBy: Schema.optional(Schema.NullOr(Expressions)),
  properties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter))),
  fixedProperties: Schema.optional(Schema.NullOr(Schema.Array(PropertyFilter))),
  event: Schema.optional(Schema.NullOr(Schema.String)),
  personId: Schema.optional(Schema.NullOr(Schema.String)),
  after: Schema.optional(Schema.NullOr(DateBoundText)),
  before: Schema.optional(Schema.NullOr(DateBoundText)),
  limit: Schema.optional(Schema.NullOr(IntIn(1, QUERY_MAX_LIMIT - 1))),
  offset: Schema.optional(Schema.NullOr(IntIn(0))),
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean)),
  ...PASSED_FIELDS
}).annotations({ identifier: "EventsQuery", parseOptions: Strict })
export type EventsQueryNode = typeof EventsQueryNode.Type

/** A table of events, as PostHog's data table node holds it. */
export const DataTableNode = Schema.Struct(
  { kind: Schema.Literal("DataTableNode"), source: EventsQueryNode },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

/** PostHog's defaults: 100 rows, from the last 24 hours. */
const DEFAULT_LIMIT = 100
const DEFAULT_AFTER = "-24h"

/**
 * Columns that stand for several, shown as one object: the whole event (`*`), its person, and
 * the name a person is shown by.
 */
const OBJECTS: Readonly<Record<string, ReadonlyArray<readonly [key: string, expr: string]>>> = {
  "*": [
    ["uuid", "uuid"],
    ["event", "event"],
    ["properties", "properties"],
    ["timestamp", "timestamp"],
    ["distinct_id", "distinct_id"],
    ["elements_chain", "elements_chain"],
    ["created_at", "created_at"]
  ],
  person: [
    ["uuid", "person_id"],
    ["created_at", "person.created_at"],
    ["properties", "person.properties"],
    ["distinct_id", "distinct_id"]
  ],
  person_display_name: [
    ["display_name", "coalesce(toString(person.properties.email), distinct_id)"],
    ["id", "person_id"],
    ["distinct_id", "distinct_id"]
  ]
}

/** A select entry without its `-- label` comment (PostHog's columns carry one). */
export const bare = (column: string) => column.replace(/--.*$/s, "").trim()

/** Whether an expression aggregates (`count()`, `sum(…)`), not looking into subqueries. */
const aggregates = (node: unknown): boolean => {
  if (typeof node !== "object" || node === null) return false
  if (Array.isArray(node)) return node.some(aggregates)
  const record = node as Record<string, unknown>
  if (record["node"] === "SelectQuery" || record["node"] === "SelectSetQuery") return false
  if (record["node"] === "Call") {
    const name = canonicalName(String(record["name"]))
    if (name !== undefined && SIGNATURES[name]?.aggregate) return true
  }
  return Object.values(record).some(aggregates)
}

/** A value in one of those objects: properties as an object, as PostHog shows them, not JSON text. */
const objectValue = (key: string, value: unknown) =>
  key === "properties" && typeof value === "string" ? (JSON.parse(value) as unknown) : value

/** A tree without its places in the text. */
const unlocated = <T>(node: T): T => {
  if (typeof node !== "object" || node === null) return node
  if (Array.isArray(node)) return node.map(unlocated) as T
  return Object.fromEntries(
    Object.entries(node).flatMap(([key, value]) => (key === "start" || key === "end" ? [] : [[key, unlocated(value)]]))
  ) as T
}

const unaliased = (expr: A.Expr): A.Expr => (expr.node === "Alias" ? expr.expr : expr)

const equals = (left: A.Expr, value: string): A.Expr => ({
  node: "CompareOperation",
  op: "==",
  left,
  right: Q.constant(value)
})

/**
 * The statement an EventsQuery runs: the select list as written (each entry on its own line, so a
 * `-- label` ends with it), the where and order expressions, then its own conditions and page.
 */
export const planEventsQuery = (
  node: EventsQueryNode
): Effect.Effect<InsightPlan, ZedQLSyntaxError | ZedQLQueryError | GrammarRefused> =>
  Effect.gen(function* () {
    const columns = node.select.map((column) => OBJECTS[bare(column)] ?? null)
    const expressions = node.select.flatMap((column, i) => columns[i]?.map(([, expr]) => expr) ?? [column])
    const text = [
      "SELECT",
      expressions.join("\n, "),
      "FROM events",
      ...(node.where?.length ? ["WHERE", node.where.map((w) => `(${w}\n)`).join(" AND ")] : []),
      ...(node.orderBy?.length ? ["ORDER BY", node.orderBy.join("\n, ")] : [])
    ].join("\n")
    // Places in the statement Zed wrote mean nothing to the caller, who sent expressions: none are given.
    const parsed = unlocated(
      yield* parseSelect(text).pipe(
        Effect.mapError((error) =>
          error._tag === "ZedQLSyntaxError" ? new ZedQLSyntaxError({ message: error.message, span: null }) : error
        )
      )
    )
    if (parsed.node !== "SelectQuery" || parsed.group_by || parsed.limit || parsed.having || parsed.ctes)
      return yield* new ZedQLQueryError({
        message: "select, where and orderBy take expressions, not clauses of a statement",
        span: null
      })
    let filters: ReadonlyArray<A.Expr>
    try {
      filters = filterConditions({
        dateRange: { date_from: node.after ?? DEFAULT_AFTER, date_to: node.before ?? null },
        properties: [...(node.properties ?? []), ...(node.fixedProperties ?? [])]
      })
    } catch (error) {
      if (error instanceof UnsupportedFilter) return yield* new ZedQLQueryError({ message: error.message, span: null })
      throw error
    }
    const grouped = parsed.select.some(aggregates)
    const limit = node.limit ?? DEFAULT_LIMIT
    const offset = node.offset ?? 0
    const statement: A.SelectQuery = {
      ...parsed,
      where: Q.and([
        ...filters,
        ...(node.event != null ? [equals(Q.field("event"), node.event)] : []),
        ...(node.personId != null ? [equals(Q.call("toString", [Q.field("person_id")]), node.personId)] : []),
        ...(parsed.where ? [parsed.where] : [])
      ]),
      ...(grouped ? { group_by: parsed.select.filter((e) => !aggregates(e)).map(unaliased) } : {}),
      order_by:
        parsed.order_by ??
        (!grouped && node.select.some((c) => bare(c) === "*" || bare(c) === "timestamp")
          ? [{ node: "OrderExpr", expr: Q.field("timestamp"), order: "DESC" }]
          : null),
      // One more than the page, to tell whether there are more.
      limit: Q.constant(limit + 1),
      offset: Q.constant(offset)
    }
    /** A row's values, the objects' columns folded into one. */
    const fold = (row: ReadonlyArray<unknown>) => {
      let at = 0
      return columns.map((keys) => {
        return keys === null ? row[at++] : Object.fromEntries(keys.map(([key]) => [key, objectValue(key, row[at++])]))
      })
    }
    return {
      queries: [statement],
      zedql: formatSelect(statement),
      shape: ([rows = []]) => rows.slice(0, limit).map(fold),
      fields: ([rows = []], [types = []]) => {
        let at = 0
        return {
          columns: node.select,
          types: columns.map((keys) => (keys === null ? types[at++] : ((at += keys.length), "Tuple"))),
          hasMore: rows.length > limit,
          limit,
          offset
        }
      }
    }
  })

import { Effect, Schema } from "effect"
import { type InsightQueryInvalid, invalid } from "./decode.js"
import { actionIdGiven, entityConditions, stepName } from "./conditions.js"
import { Properties, propertiesCondition } from "./properties.js"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"

// A series (EventsNode, or ActionsNode: the events an action matches) as ZedQL: which events it
// counts, and how it aggregates them per bucket.

const PROPERTY_MATHS = ["sum", "avg", "min", "max", "median", "p75", "p90", "p95", "p99"] as const
const ACTOR_MATHS = [
  "avg_count_per_actor",
  "min_count_per_actor",
  "max_count_per_actor",
  "median_count_per_actor"
] as const
export const MATHS = [
  "total",
  "dau",
  "weekly_active",
  "monthly_active",
  "unique_session",
  ...PROPERTY_MATHS,
  ...ACTOR_MATHS
] as const

export const EventsNode = Schema.Struct({
  kind: Schema.Literal("EventsNode", "ActionsNode"),
  event: Schema.optional(Schema.NullOr(Schema.String)),
  /** An ActionsNode's action. */
  id: Schema.optional(Schema.Int),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  custom_name: Schema.optional(Schema.NullOr(Schema.String)),
  math: Schema.optional(Schema.NullOr(Schema.Literal(...MATHS))),
  math_property: Schema.optional(Schema.NullOr(Schema.String)),
  math_hogql: Schema.optional(Schema.NullOr(Schema.String)),
  math_group_type_index: Schema.optional(Schema.NullOr(Schema.Number)),
  properties: Schema.optional(Properties),
  fixedProperties: Schema.optional(Properties)
}).pipe(
  Schema.filter(
    (node) =>
      !(PROPERTY_MATHS as ReadonlyArray<string>).includes(node.math ?? "total") ||
      (node.math_property ?? "") !== "" ||
      `math "${node.math}" needs a math_property`
  ),
  Schema.filter(actionIdGiven)
)
export type EventsNode = typeof EventsNode.Type

/**
 * How a series aggregates the events of a bucket: `input`, a value per event (as column `x`),
 * aggregated by `of`; per actor, the events are first counted per actor (`x` being the actor).
 * Rolling windows count the actors active in the days up to the bucket.
 */
export interface Aggregation {
  readonly input: A.Expr
  readonly of: (x: A.Expr) => A.Expr
  readonly perActor?: boolean
  readonly rollingDays?: 7 | 30
}

const QUANTILES: Readonly<Record<string, number>> = { p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }

const ofValues =
  (math: string) =>
  (x: A.Expr): A.Expr => {
    const q = QUANTILES[math]
    return q === undefined
      ? Q.call(math, [x])
      : { ...Q.call("quantile", [x]), params: [{ node: "Constant", value: q }] }
  }

const actors = (x: A.Expr) => Q.expr`uniq(${x})`
const PERSON = Q.field("person_id")

export const aggregation = (node: EventsNode): Aggregation => {
  const math = node.math ?? "total"
  switch (math) {
    case "total":
      return { input: Q.expr`1`, of: () => Q.expr`count()` }
    case "dau":
      return { input: PERSON, of: actors }
    case "weekly_active":
      return { input: PERSON, of: actors, rollingDays: 7 }
    case "monthly_active":
      return { input: PERSON, of: actors, rollingDays: 30 }
    case "unique_session":
      return { input: Q.expr`nullIf(\`$session_id\`, '')`, of: actors }
    case "avg_count_per_actor":
    case "min_count_per_actor":
    case "max_count_per_actor":
    case "median_count_per_actor":
      return { input: PERSON, of: ofValues(math.slice(0, math.indexOf("_"))), perActor: true }
    default:
      return { input: Q.expr`toFloat(properties[${node.math_property!}])`, of: ofValues(math) }
  }
}

/** The series' own conditions: its event, its properties (and the query's). */
export const seriesConditions = (node: EventsNode, queryProperties: Properties | undefined): Array<A.Expr> => [
  ...entityConditions(node),
  ...[node.properties, node.fixedProperties, queryProperties].map(propertiesCondition).filter((c) => c !== undefined)
]

/** The series' name as PostHog shows it. */
export const seriesName = (node: EventsNode): string => node.custom_name ?? stepName(node)

/** PostHog's `action` echo on each result. */
export const actionOf = (node: EventsNode, order: number, days: ReadonlyArray<string>) => ({
  id: node.kind === "ActionsNode" ? node.id! : (node.event ?? null),
  type: node.kind === "ActionsNode" ? "actions" : "events",
  order,
  name: node.name ?? seriesName({ ...node, custom_name: null }),
  custom_name: node.custom_name ?? null,
  math: node.math ?? "total",
  math_property: node.math_property ?? null,
  math_hogql: node.math_hogql ?? null,
  math_group_type_index: node.math_group_type_index ?? null,
  days,
  properties: {}
})

/** Series `index` of a query (a point's series), or why there is none. */
export const seriesAt = (
  series: ReadonlyArray<EventsNode>,
  index: number
): Effect.Effect<EventsNode, InsightQueryInvalid> =>
  index < series.length ? Effect.succeed(series[index]!) : invalid(`series: the query has no series ${index}`)

import { Schema } from "effect"
import type * as A from "../../zedql/ast.js"
import { dateBound } from "../../zedql/filters.js"
import * as Q from "../../zedql/build.js"
import type { DateRange } from "./dateRange.js"
import { Properties, propertiesCondition } from "./properties.js"
import { NOW } from "./statements.js"

// ZedQL conditions of the funnel and retention planners: a step (an EventsNode without math), a
// date range as bounds on `timestamp`, as trees.

/** An ActionsNode names its action. */
export const actionIdGiven = (node: { readonly kind?: string | undefined; readonly id?: number | undefined }) =>
  node.kind !== "ActionsNode" || node.id !== undefined || "an ActionsNode needs the action's id"

const StepFields = Schema.Struct({
  kind: Schema.optional(Schema.Literal("EventsNode", "ActionsNode")),
  /** null: any event. */
  event: Schema.optional(Schema.NullOr(Schema.String)),
  /** An ActionsNode's action. */
  id: Schema.optional(Schema.Int),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  custom_name: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Properties)
})
/** A funnel step (or exclusion): an event by name, or the events an action matches. */
export const StepNode = StepFields.pipe(Schema.filter(actionIdGiven))
export type StepNode = typeof StepNode.Type
export const STEP_FIELDS = StepFields.fields

/** What names an event or action node's events. */
export interface EntityRef {
  readonly kind?: "EventsNode" | "ActionsNode" | undefined
  readonly event?: string | null | undefined
  readonly id?: number | undefined
}

/** The events a node names: those of its event (none: any event), or those its action matches. */
export const entityConditions = (node: EntityRef): Array<A.Expr> =>
  node.kind === "ActionsNode"
    ? [Q.call("matchesAction", [Q.constant(node.id!)])]
    : node.event == null
      ? []
      : [Q.expr`event = ${node.event}`]

/** Property filters as a list of conditions (none or one). Throws `UnsupportedFilter`. */
export const propertyConditions = (properties: Properties | undefined): Array<A.Expr> => {
  const condition = propertiesCondition(properties)
  return condition === undefined ? [] : [condition]
}

/** The events a step stands for. Throws `UnsupportedFilter`. */
export const stepCondition = (step: StepNode): A.Expr =>
  Q.and([...entityConditions(step), ...propertyConditions(step.properties)])

/** The end of a conversion window of `interval` units from a start. */
export const windowEnd = (interval: number, unit: string) => {
  const window = Q.call(`toInterval${unit[0]!.toUpperCase()}${unit.slice(1)}`, [Q.constant(interval)])
  return (start: A.Expr): A.Expr => Q.expr`${start} + ${window}`
}

/** A step's or series' name as PostHog shows it, before its custom name. */
export const stepName = (step: EntityRef & { readonly name?: string | null | undefined }): string =>
  step.name ?? (step.kind === "ActionsNode" ? `Action ${step.id}` : (step.event ?? "All events"))

const withNow = (expr: A.Expr, now: A.Expr): A.Expr => {
  switch (expr.node) {
    case "Call":
      return expr.name === "now" && expr.args.length === 0
        ? now
        : { ...expr, args: expr.args.map((a) => withNow(a, now)) }
    case "ArithmeticOperation":
      return { ...expr, left: withNow(expr.left, now), right: withNow(expr.right, now) }
    default:
      return expr
  }
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/** A date range bound as a ZedQL DateTime (relative ones from the plan's `{now}`), or undefined for `all`/none. */
export const boundExpr = (text: string | null | undefined): A.Expr | undefined => {
  const expr = dateBound(text)
  return expr === undefined ? undefined : withNow(expr, NOW)
}

/**
 * Conditions on `timestamp` for a date range: from `date_from` (default `fallbackFrom`) to
 * `date_to` (default now); a date-only `date_to` includes that whole day, as in PostHog.
 */
export const dateRangeConditions = (range: DateRange | null | undefined, fallbackFrom: string): Array<A.Expr> => {
  const from = boundExpr(range?.date_from ?? fallbackFrom)
  const toText = range?.date_to
  const to = toText == null || toText === "" ? NOW : boundExpr(toText)
  return [
    ...(from ? [Q.expr`timestamp >= ${from}`] : []),
    ...(to ? [DATE_ONLY.test(toText ?? "") ? Q.expr`timestamp < addDays(${to}, 1)` : Q.expr`timestamp <= ${to}`] : [])
  ]
}

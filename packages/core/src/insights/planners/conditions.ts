import { Schema } from "effect"
import type * as A from "../../zedql/ast.js"
import { dateBound } from "../../zedql/filters.js"
import { formatExpr } from "../../zedql/format.js"
import type { InsightContext } from "../plan.js"
import type { DateRange } from "./dateRange.js"
import { Properties, propertiesCondition } from "./properties.js"
import { instant, quote } from "./text.js"

// ZedQL conditions of the funnel and retention planners: a step (an EventsNode without math), a
// date range as bounds on `timestamp`, and conjunctions of them, as ZedQL text.

export const StepNode = Schema.Struct({
  kind: Schema.optional(Schema.Literal("EventsNode")),
  /** null: any event. */
  event: Schema.optional(Schema.NullOr(Schema.String)),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  custom_name: Schema.optional(Schema.NullOr(Schema.String)),
  properties: Schema.optional(Properties)
})
export type StepNode = typeof StepNode.Type

export const and = (conditions: ReadonlyArray<string>): string =>
  conditions.length === 0 ? "true" : conditions.length === 1 ? conditions[0]! : conditions.map((c) => `(${c})`).join(" AND ")

export const or = (conditions: ReadonlyArray<string>): string =>
  conditions.length === 0 ? "false" : conditions.length === 1 ? conditions[0]! : conditions.map((c) => `(${c})`).join(" OR ")

/** Property filters as a list of conditions (none or one). Throws `UnsupportedFilter`. */
export const propertyConditions = (properties: Properties | undefined): Array<string> => {
  const condition = propertiesCondition(properties)
  return condition === undefined ? [] : [condition]
}

/** The events a step stands for. Throws `UnsupportedFilter`. */
export const stepCondition = (step: StepNode): string =>
  and([...(step.event == null ? [] : [`event = ${quote(step.event)}`]), ...propertyConditions(step.properties)])

export const stepName = (step: StepNode): string => step.name ?? step.event ?? "All events"

const withNow = (expr: A.Expr, now: A.Expr): A.Expr => {
  switch (expr.node) {
    case "Call":
      return expr.name === "now" && expr.args.length === 0 ? now : { ...expr, args: expr.args.map((a) => withNow(a, now)) }
    case "ArithmeticOperation":
      return { ...expr, left: withNow(expr.left, now), right: withNow(expr.right, now) }
    default:
      return expr
  }
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/** A date range bound as a ZedQL DateTime (relative ones from the context's now), or undefined for `all`/none. */
export const boundExpr = (text: string | null | undefined, ctx: InsightContext): string | undefined => {
  const expr = dateBound(text)
  if (expr === undefined) return undefined
  return formatExpr(withNow(expr, { node: "Call", name: "toDateTime", args: [{ node: "Constant", value: ctx.now.toISOString() }] }))
}

/**
 * Conditions on `timestamp` for a date range: from `date_from` (default `fallbackFrom`) to
 * `date_to` (default now); a date-only `date_to` includes that whole day, as in PostHog.
 */
export const dateRangeConditions = (range: DateRange | null | undefined, ctx: InsightContext, fallbackFrom: string): Array<string> => {
  const from = boundExpr(range?.date_from ?? fallbackFrom, ctx)
  const toText = range?.date_to
  const to = toText == null || toText === "" ? instant(ctx.now.getTime()) : boundExpr(toText, ctx)
  return [
    ...(from ? [`timestamp >= ${from}`] : []),
    ...(to ? [DATE_ONLY.test(toText ?? "") ? `timestamp < addDays(${to}, 1)` : `timestamp <= ${to}`] : [])
  ]
}

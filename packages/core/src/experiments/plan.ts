import type { InsightPlan } from "../insights/plan.js"
import { propertyConditions, windowEnd } from "../insights/planners/conditions.js"
import type { Properties } from "../insights/planners/properties.js"
import { NOW, propertyText, shownStatements } from "../insights/planners/statements.js"
import type * as A from "../zedql/ast.js"
import * as Q from "../zedql/build.js"
import type { ExposureCriteria, Metric, MetricSource } from "./definition.js"

// An experiment's metrics as ZedQL over `events`. Exposure: each person's first exposure (the
// experiment's flag called with one of its variants, or the custom exposure event with the
// `$feature/<key>` property) between the start and end dates, the variant then, and how many
// variants the person was seen with. Then, per metric, each exposed person's value from their
// events after exposure (within the metric's window), summed per variant with the squares the
// statistics need. Persons seen with several variants are left out, or kept in their first.

export interface ExperimentScope {
  readonly flagKey: string
  /** Variant keys, control first. */
  readonly variants: ReadonlyArray<string>
  readonly start: Date
  /** None while running: up to the plan's `{now}`. */
  readonly end: Date | null
  readonly exposure: ExposureCriteria
  /** The project's test-account filters, applied when the criteria ask. */
  readonly testAccountFilters: Properties
}

/** Beyond any event's time (seconds): a funnel step not reached. */
const NEVER = 1e12

const tuple = (values: ReadonlyArray<string>): A.Expr => ({ node: "Tuple", exprs: values.map(Q.constant) })

const bounds = (scope: ExperimentScope): Array<A.Expr> => [
  Q.expr`timestamp >= toDateTime(${scope.start.toISOString()})`,
  scope.end === null ? Q.expr`timestamp <= ${NOW}` : Q.expr`timestamp <= toDateTime(${scope.end.toISOString()})`
]

const testAccounts = (scope: ExperimentScope): Array<A.Expr> =>
  scope.exposure.filterTestAccounts === false ? [] : propertyConditions(scope.testAccountFilters)

/** Per exposed person: `actor, exposed_at, variants, variant`. */
export const exposures = (scope: ExperimentScope): A.SelectLike => {
  const custom = scope.exposure.exposure_config
  const variant = propertyText(custom ? `$feature/${scope.flagKey}` : "$feature_flag_response", "event")
  const exposure = custom
    ? [Q.expr`event = ${custom.event}`, ...propertyConditions(custom.properties)]
    : [Q.expr`event = '$feature_flag_called'`, Q.expr`properties.$feature_flag = ${scope.flagKey}`]
  const where = Q.and([
    ...exposure,
    Q.expr`${variant} IN ${tuple(scope.variants)}`,
    ...bounds(scope),
    ...testAccounts(scope)
  ])
  return Q.select`SELECT person_id AS actor, min(timestamp) AS exposed_at, uniq(${variant}) AS variants,
    argMin(${variant}, timestamp) AS variant FROM events WHERE ${where} GROUP BY actor`
}

const counted = (scope: ExperimentScope): A.Expr =>
  scope.exposure.multiple_variant_handling === "first_seen" ? Q.constant(true) : Q.expr`variants = 1`

/** Exposed persons per variant, and of them those seen with more than one: `variant, persons, multiple`. */
export const exposureCounts = (scope: ExperimentScope): A.SelectLike =>
  Q.select`SELECT variant, count() AS persons, countIf(variants > 1) AS multiple FROM ${exposures(scope)} GROUP BY variant`

const sourceCondition = (source: MetricSource): A.Expr =>
  Q.and([...(source.event == null ? [] : [Q.expr`event = ${source.event}`]), ...propertyConditions(source.properties)])

/** The sources a metric reads, in the order of the `s0 … s{n}` columns. */
const sourcesOf = (metric: Metric): ReadonlyArray<MetricSource> =>
  metric.metric_type === "mean"
    ? [metric.source]
    : metric.metric_type === "funnel"
      ? metric.series
      : [metric.numerator, metric.denominator]

/**
 * Per variant: `variant, persons, Σv, Σv², Σw, Σw², Σvw`, v being a person's value (a conversion,
 * a count, a sum; a ratio's numerator) and w a ratio's denominator.
 */
export const metricSums = (scope: ExperimentScope, metric: Metric): A.SelectLike => {
  const sources = sourcesOf(metric)
  const flags = sources.map((s, k) => Q.alias(sourceCondition(s), `s${k}`))
  const values = sources.map((s, k) =>
    Q.alias(
      s.math === "sum" ? Q.expr`toFloatOrZero(${propertyText(s.math_property!, "event")})` : Q.constant(1),
      `v${k}`
    )
  )
  const read = Q.select`SELECT person_id AS actor, timestamp, ${flags}, ${values} FROM events
    WHERE ${Q.and([Q.or(sources.map(sourceCondition)), ...bounds(scope), ...testAccounts(scope)])}`
  const exposedAt = Q.field("x", "exposed_at")
  const after = Q.and([
    Q.expr`m.timestamp >= ${exposedAt}`,
    ...(metric.conversion_window == null
      ? []
      : [
          Q.expr`m.timestamp <= ${windowEnd(metric.conversion_window, metric.conversion_window_unit ?? "day")(exposedAt)}`
        ])
  ])
  const seen = (k: number) => Q.and([Q.field("m", `s${k}`), after])
  const perSource = (k: number) =>
    sources[k]!.math === "sum" ? Q.expr`sumIf(${Q.field("m", `v${k}`)}, ${seen(k)})` : Q.expr`countIf(${seen(k)})`
  const aggregates =
    metric.metric_type === "funnel"
      ? sources.map((_, k) => Q.alias(Q.expr`groupArrayIf(toUnixTimestamp(m.timestamp), ${seen(k)})`, `a${k}`))
      : metric.metric_type === "mean"
        ? [Q.alias(perSource(0), "v"), Q.alias(Q.constant(0), "w")]
        : [Q.alias(perSource(0), "v"), Q.alias(perSource(1), "w")]
  const persons = Q.select`SELECT x.actor AS actor, x.variant AS variant, any(x.variants) AS variants,
    toUnixTimestamp(any(x.exposed_at)) AS exposed, ${aggregates}
    FROM ${exposures(scope)} AS x LEFT JOIN ${read} AS m ON x.actor = m.actor GROUP BY x.actor, x.variant`
  const valued =
    metric.metric_type === "funnel"
      ? Q.select`SELECT variant, variants, if(${funnelEnd(sources.length)} < ${NEVER}, 1, 0) AS v, 0 AS w FROM ${persons}`
      : persons
  return Q.select`SELECT variant, count() AS persons, sum(v) AS total, sum(v * v) AS total_sq, sum(w) AS den,
    sum(w * w) AS den_sq, sum(v * w) AS vw FROM ${valued} WHERE ${counted(scope)} GROUP BY variant`
}

/** When a person reached the funnel's last step in order after exposure, or NEVER. */
const funnelEnd = (steps: number): A.Expr => {
  let previous: A.Expr = Q.field("exposed")
  for (let k = 0; k < steps; k++) {
    previous = Q.expr`arrayMin(arrayConcat(arrayFilter(t -> t >= ${previous}, ${Q.field(`a${k}`)}), array(${NEVER})))`
  }
  return previous
}

/** Rows of the exposure statement and of each metric's, as the result shaper reads them. */
export type Rows = ReadonlyArray<ReadonlyArray<unknown>>

/** The statements of an experiment's metric: exposure counts first, then the metric's sums. */
export const planMetric = (
  scope: ExperimentScope,
  metric: Metric,
  now: Date,
  shape: (exposure: Rows, sums: Rows) => unknown
): InsightPlan => {
  const queries = [exposureCounts(scope), metricSums(scope, metric)]
  const values = { now: now.toISOString() }
  return {
    queries,
    values,
    zedql: shownStatements(queries, values, ";\n"),
    shape: ([exposure, sums]) => shape(exposure ?? [], sums ?? [])
  }
}

import { Schema } from "effect"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { PropertyFilter } from "../../filters/property.js"
import { cohortIdOf } from "../../flags/cohorts.js"
import { propertyCondition, UnsupportedFilter } from "../../zedql/filters.js"

// Property filters as ZedQL conditions: a list (all must hold) or PostHog's nested groups
// `{"type": "AND", "values": [{"type": "OR", "values": [filters]}]}`. Event and person filters, and
// cohort filters (`{"type": "cohort", "key": "id", "value": N}`) as `person_id IN COHORT N`; other
// types are refused rather than ignored.

export interface PropertyGroup {
  readonly type: "AND" | "OR"
  readonly values: ReadonlyArray<PropertyGroup | typeof PropertyFilter.Type>
}

const cohortCondition = (filter: typeof PropertyFilter.Type): A.Expr => ({
  node: "CompareOperation",
  op: "in cohort",
  left: Q.field("person_id"),
  right: Q.constant(cohortIdOf(filter)!)
})

const Filter = PropertyFilter.pipe(
  Schema.filter(
    (f) =>
      f.type === undefined ||
      f.type === "event" ||
      f.type === "person" ||
      (f.type === "cohort" && cohortIdOf(f) !== undefined && f.operator === undefined) ||
      (f.type === "cohort"
        ? "A cohort filter's value is the cohort's id, and it takes no operator"
        : `Property filters of type "${f.type}" are not supported (only event, person and cohort)`)
  )
)

export const PropertyGroup: Schema.Schema<PropertyGroup> = Schema.Struct({
  type: Schema.Literal("AND", "OR"),
  values: Schema.Array(
    Schema.Union(
      // Named, so that the API's JSON Schema can refer to it from within itself.
      Schema.suspend(() => PropertyGroup).annotations({ identifier: "PropertyGroup" }),
      Filter
    )
  )
}).annotations({ identifier: "PropertyGroup" })

export const Properties = Schema.NullOr(Schema.Union(Schema.Array(Filter), PropertyGroup))
export type Properties = typeof Properties.Type

const isGroup = (value: PropertyGroup | typeof PropertyFilter.Type): value is PropertyGroup =>
  (value.type === "AND" || value.type === "OR") && "values" in value && Array.isArray(value.values)

const groupCondition = (group: PropertyGroup): A.Expr | undefined => {
  const parts = group.values
    .map((v) => (isGroup(v) ? groupCondition(v) : v.type === "cohort" ? cohortCondition(v) : propertyCondition(v)))
    .filter((t) => t !== undefined)
  if (parts.length <= 1) return parts[0]
  return group.type === "AND" ? Q.and(parts) : Q.or(parts)
}

/**
 * The condition property filters stand for, or undefined when there is none.
 * Throws `UnsupportedFilter` for an operator ZedQL's filters do not know.
 */
export const propertiesCondition = (properties: Properties | undefined): A.Expr | undefined => {
  if (properties == null) return undefined
  return groupCondition(Array.isArray(properties) ? { type: "AND", values: properties } : (properties as PropertyGroup))
}

export { UnsupportedFilter }

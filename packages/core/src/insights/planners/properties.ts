import { Schema } from "effect"
import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import type { PropertyFilter } from "../../filters/property.js"
import { QueryPropertyFilter, queryFilterCondition, UnsupportedFilter } from "../../zedql/filters.js"

// Property filters as ZedQL conditions: a list (all must hold) or PostHog's nested groups
// `{"type": "AND", "values": [{"type": "OR", "values": [filters]}]}`, each filter as a query's
// `filters.properties` takes it.

export interface PropertyGroup {
  readonly type: "AND" | "OR"
  readonly values: ReadonlyArray<PropertyGroup | PropertyFilter>
}

export const PropertyGroup: Schema.Schema<PropertyGroup> = Schema.Struct({
  type: Schema.Literal("AND", "OR"),
  values: Schema.Array(
    Schema.Union(
      // Named, so that the API's JSON Schema can refer to it from within itself.
      Schema.suspend(() => PropertyGroup).annotations({ identifier: "PropertyGroup" }),
      QueryPropertyFilter
    )
  )
}).annotations({ identifier: "PropertyGroup" })

export const Properties = Schema.NullOr(Schema.Union(Schema.Array(QueryPropertyFilter), PropertyGroup))
export type Properties = typeof Properties.Type

const isGroup = (value: PropertyGroup | PropertyFilter): value is PropertyGroup =>
  (value.type === "AND" || value.type === "OR") && "values" in value && Array.isArray(value.values)

const groupCondition = (group: PropertyGroup): A.Expr | undefined => {
  const parts = group.values
    .map((v) => (isGroup(v) ? groupCondition(v) : queryFilterCondition(v)))
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

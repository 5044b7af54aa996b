import { Schema } from "effect"
import { PROPERTY_OPERATORS, PropertyFilter } from "../filters/property.js"
import { check } from "../schema/fields.js"

/** The `properties` query parameter of list endpoints: a JSON array of property filters. */
export const PropertyFiltersParam = Schema.parseJson(
  Schema.Array(
    PropertyFilter.pipe(
      check(
        (f: PropertyFilter) => f.operator === "is_set" || f.operator === "is_not_set" || f.value !== undefined,
        "required",
        "A value is required for this operator."
      )
    )
  )
).annotations({
  description: `JSON array of \`{"key", "value", "operator"}\`; operators: ${PROPERTY_OPERATORS.join(", ")} (default exact).`
})

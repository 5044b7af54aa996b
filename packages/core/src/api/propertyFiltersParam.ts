import { Schema } from "effect"
import { OPERATORS, PropertyFilterSchema } from "../persons/filters.js"
import { check } from "./validation.js"

/** The `properties` query parameter of list endpoints: a JSON array of property filters. */
export const PropertyFiltersParam = Schema.parseJson(Schema.Array(PropertyFilterSchema.pipe(
  check((f: typeof PropertyFilterSchema.Type) => f.operator === "is_set" || f.operator === "is_not_set" || f.value !== undefined,
    "required", "A value is required for this operator.")
))).annotations({
  description: `JSON array of \`{"key", "value", "operator"}\`; operators: ${OPERATORS.join(", ")} (default exact).`
})

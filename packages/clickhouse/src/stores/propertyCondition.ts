import { asText, filterValues, NUMERIC_TEXT, type PropertyFilter } from "@zed/core"
import type { Params } from "../params.js"

// A property filter on a JSON text column, with the meaning of `matches` in @zed/core's
// persons/filters (the storage conformance suites hold the two equal): values compare as text the
// way JSON holds them, strings bare.

export const propertyCondition = (params: Params, column: string) => (filter: PropertyFilter): string => {
  const key = params.bind(filter.key, "String")
  const has = `JSONHas(${column}, ${key})`
  const text = `if(JSONType(${column}, ${key}) = 'String', JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key}))`
  const present = `(${has} AND JSONType(${column}, ${key}) != 'Null')`
  const anyOf = `(${present} AND has(${params.bind(filterValues(filter), "Array(String)")}, ${text}))`
  const like = `(${present} AND positionCaseInsensitiveUTF8(${text}, ${params.bind(asText(filter.value ?? ""), "String")}) > 0)`
  switch (filter.operator) {
    case "is_set":
      return has
    case "is_not_set":
      return `NOT ${has}`
    case "exact":
      return anyOf
    case "is_not":
      return `NOT ${anyOf}`
    case "icontains":
      return like
    case "not_icontains":
      return `NOT ${like}`
    default: {
      const value = filter.value
      if (typeof value !== "number" && !(typeof value === "string" && NUMERIC_TEXT.test(value))) return "false"
      const op = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[filter.operator]
      const number = `if(JSONType(${column}, ${key}) IN ('Int64', 'UInt64', 'Double') OR match(${text}, ${params.bind(NUMERIC_TEXT.source, "String")}), toFloat64OrNull(trim(${text})), NULL)`
      return `ifNull(${number} ${op} ${params.bind(Number(value), "Float64")}, false)`
    }
  }
}

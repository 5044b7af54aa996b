import {
  asInstant,
  asNumber,
  DATE_TEXT,
  filterTexts,
  isPattern,
  NEGATES,
  NUMERIC_TEXT,
  type PropertyFilter,
  type PropertyOperator
} from "@zed/core/domain"
import type { Params } from "../params.js"

const ORDER = { gt: ">", gte: ">=", lt: "<", lte: "<=", is_date_before: "<", is_date_after: ">" } as const

/**
 * A property filter on a JSON text column, with the meaning @zed/core's filters/property.ts gives
 * it (the conformance table holds every store to it): the property's text is a string's own, the
 * JSON of other values, NULL when absent or a JSON null.
 */
export const propertyCondition =
  (params: Params, column: string) =>
  (filter: PropertyFilter): string => {
    const operator = filter.operator ?? "exact"
    const key = params.bind(filter.key, "String")
    const type = `JSONType(${column}, ${key})`
    const text = `if(JSONHas(${column}, ${key}) AND ${type} != 'Null', if(${type} = 'String', JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key})), NULL)`
    const one = (op: PropertyOperator, value: string): string => {
      switch (op) {
        case "exact":
          return `(${text} = ${params.bind(value, "String")})`
        case "icontains":
          return `(positionCaseInsensitiveUTF8(${text}, ${params.bind(value, "String")}) > 0)`
        case "regex":
          return isPattern(value) ? `match(${text}, ${params.bind(value, "String")})` : "false"
        case "gt":
        case "gte":
        case "lt":
        case "lte": {
          const right = asNumber(value)
          if (right === undefined) return "false"
          const number = `if(match(${text}, ${params.bind(NUMERIC_TEXT.source, "String")}), toFloat64OrNull(trim(${text})), NULL)`
          return `(${number} ${ORDER[op]} ${params.bind(right, "Float64")})`
        }
        case "is_date_before":
        case "is_date_after": {
          const right = asInstant(value)
          if (right === undefined) return "false"
          const instant = `if(match(${text}, ${params.bind(DATE_TEXT.source, "String")}), parseDateTime64BestEffortOrNull(${text}, 3, 'UTC'), NULL)`
          return `(${instant} ${ORDER[op]} toDateTime64(${params.bind(right / 1000, "Float64")}, 3, 'UTC'))`
        }
        default:
          return "false"
      }
    }
    if (operator === "is_set") return `(${text} IS NOT NULL)`
    if (operator === "is_not_set") return `(${text} IS NULL)`
    // An empty list filters nothing out.
    if (Array.isArray(filter.value) && filter.value.length === 0) return "true"
    const any = (op: PropertyOperator) =>
      `ifNull(${
        filterTexts(filter)
          .map((value) => one(op, value))
          .join(" OR ") || "false"
      }, false)`
    const positive = NEGATES[operator]
    return positive === undefined ? any(operator) : `(${text} IS NULL OR NOT ${any(positive)})`
  }

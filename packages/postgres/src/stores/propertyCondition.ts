import type { SqlClient, Statement } from "@effect/sql"
import { asText, filterValues, type PropertyFilter } from "@zed/core"

const NUMERIC_TEXT = "^\\s*-?\\d+(\\.\\d+)?\\s*$"

export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * A property filter on a JSONB column (`p.properties`, `e.properties`) with the meaning of `matches`
 * in @zed/core's persons/filters; the conformance suites hold the two equal.
 */
export const propertyCondition = (sql: SqlClient.SqlClient, column: string) => {
  const properties = sql.literal(column)
  return (filter: PropertyFilter): Statement.Fragment => {
    const key = filter.key
    const text = sql`(${properties} ->> ${key})`
    const number = sql`(CASE WHEN jsonb_typeof(${properties} -> ${key}) = 'number' OR ${text} ~ ${NUMERIC_TEXT}
      THEN ${text}::numeric END)`
    const anyOf = sql`${text} IN (SELECT json_array_elements_text(${JSON.stringify(filterValues(filter))}::json))`
    const like = sql`${text} ILIKE ${`%${escapeLike(asText(filter.value ?? ""))}%`}`
    switch (filter.operator) {
      case "is_set":
        return sql`${properties} ? ${key}`
      case "is_not_set":
        return sql`NOT (${properties} ? ${key})`
      case "exact":
        return sql`coalesce(${anyOf}, false)`
      case "is_not":
        return sql`NOT coalesce(${anyOf}, false)`
      case "icontains":
        return sql`coalesce(${like}, false)`
      case "not_icontains":
        return sql`NOT coalesce(${like}, false)`
      default: {
        if (typeof filter.value !== "number" && !(typeof filter.value === "string" && new RegExp(NUMERIC_TEXT).test(filter.value))) return sql`false`
        const op = sql.literal({ gt: ">", gte: ">=", lt: "<", lte: "<=" }[filter.operator])
        return sql`coalesce(${number} ${op} ${Number(filter.value)}, false)`
      }
    }
  }
}

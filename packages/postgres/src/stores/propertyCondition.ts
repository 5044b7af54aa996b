import type { SqlClient, Statement } from "@effect/sql"
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

export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const ORDER = { gt: ">", gte: ">=", lt: "<", lte: "<=", is_date_before: "<", is_date_after: ">" } as const

/**
 * A property filter on a JSONB column (`p.properties`, `e.properties`), with the meaning
 * @zed/core's filters/property.ts gives it (the conformance table holds every store to it).
 */
export const propertyCondition = (sql: SqlClient.SqlClient, column: string) => {
  const properties = sql.literal(column)
  return (filter: PropertyFilter): Statement.Fragment => {
    const operator = filter.operator ?? "exact"
    // The property's text: NULL when absent and when a JSON null, as unset.
    const text = sql`(${properties} ->> ${filter.key})`
    const number = sql`(CASE WHEN ${text} ~ ${NUMERIC_TEXT.source} THEN ${text}::float8 END)`
    const instant = sql`(CASE WHEN ${text} ~ ${DATE_TEXT.source} THEN
      CASE WHEN ${text} ~ '(Z|[+-][0-9]{2}:?[0-9]{2})$' THEN ${text}::timestamptz ELSE ${text}::timestamp AT TIME ZONE 'UTC' END END)`
    const one = (op: PropertyOperator, value: string): Statement.Fragment => {
      switch (op) {
        case "exact":
          return sql`${text} = ${value}`
        case "icontains":
          return sql`${text} ILIKE ${`%${escapeLike(value)}%`}`
        case "regex":
          return isPattern(value) ? sql`${text} ~ ${value}` : sql`false`
        case "gt":
        case "gte":
        case "lt":
        case "lte": {
          const right = asNumber(value)
          return right === undefined ? sql`false` : sql`${number} ${sql.literal(ORDER[op])} ${right}`
        }
        case "is_date_before":
        case "is_date_after": {
          const right = asInstant(value)
          return right === undefined ? sql`false` : sql`${instant} ${sql.literal(ORDER[op])} ${new Date(right)}`
        }
        default:
          return sql`false`
      }
    }
    if (operator === "is_set") return sql`${text} IS NOT NULL`
    if (operator === "is_not_set") return sql`${text} IS NULL`
    // An empty list filters nothing out.
    if (Array.isArray(filter.value) && filter.value.length === 0) return sql`true`
    const positive = NEGATES[operator]
    const texts = filterTexts(filter)
    const any = (op: PropertyOperator) =>
      texts.length === 0 ? sql`false` : sql`(${sql.or(texts.map((value) => one(op, value)))})`
    return positive === undefined
      ? sql`coalesce(${any(operator)}, false)`
      : sql`(${text} IS NULL OR NOT coalesce(${any(positive)}, false))`
  }
}

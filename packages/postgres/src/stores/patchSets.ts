import type { SqlClient } from "@effect/sql"

/** A JSON value as jsonb (NULL for none). */
export const jsonb = (sql: SqlClient.SqlClient, value: unknown) =>
  value === null || value === undefined ? sql`NULL` : sql`${JSON.stringify(value)}::jsonb`

/** `column = value` for each field a patch sets (undefined ones are left alone); JSON columns as jsonb. */
export const patchSets = (sql: SqlClient.SqlClient, patch: object, jsonColumns: ReadonlySet<string> = new Set()) =>
  Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([field, v]) => sql`${sql(field)} = ${jsonColumns.has(field) ? jsonb(sql, v) : v}`)

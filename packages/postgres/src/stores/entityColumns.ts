import { type SqlClient, Statement } from "@effect/sql"
import { Schema, SchemaAST } from "effect"
import { jsonb, patchSets } from "./patchSets.js"

// An entity's table, derived from its declaration in @zed/core (decision 0011): its columns are the
// stored record's fields, INSERT takes the insert form's, and a field's schema tells how its values
// are kept: text, numbers, booleans and dates as they are, anything else (arrays, records, what the
// client sent as it was) as jsonb, NULL for none.

const scalar = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Literal":
      return true
    case "Refinement":
      return scalar(ast.from)
    case "Union":
      return ast.types.every(scalar)
    case "Declaration":
      return ast === Schema.DateFromSelf.ast
    default:
      return false
  }
}

type Stored = { readonly fields: { readonly [field: string]: Schema.Schema.All } }
type Insert = { readonly fields: Schema.Struct.Fields }

const quoted = (fields: ReadonlyArray<string>) => fields.map((field) => `"${field}"`).join(", ")

export const entityColumns = (sql: SqlClient.SqlClient, record: Stored, insert: Insert) => {
  const json = new Set(Object.keys(record.fields).filter((field) => !scalar(record.fields[field]!.ast)))
  // A value given as SQL (a subquery) is taken as it is.
  const value = (field: string, v: unknown) =>
    Statement.isFragment(v) ? v : !json.has(field) ? sql`${v}` : jsonb(sql, v)
  const inserted = Object.keys(insert.fields)
  return {
    /** Every field's column, for SELECT and RETURNING (quoted: `order` is a keyword). */
    columns: sql.literal(quoted(Object.keys(record.fields))),
    /** The columns INSERT names: the insert form's fields. */
    inserted: sql.literal(quoted(inserted)),
    /** A new row's values, in the order of `inserted`. */
    values: (row: object) => sql.csv(inserted.map((field) => value(field, (row as { [f: string]: unknown })[field]))),
    /** `column = value` for each field a patch sets; those left undefined stay as they are. */
    sets: (patch: object) => patchSets(sql, patch, json)
  }
}

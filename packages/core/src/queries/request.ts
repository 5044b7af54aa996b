import { Schema } from "effect"
import { check } from "../schema/fields.js"
import { DateBoundText, QueryFilters } from "../zedql/filters.js"
import { RefreshMode } from "./cachePolicy.js"

// The query API's request (PostHog's QueryRequest), with ZedQL as the query language.

const Strict = { onExcessProperty: "error" } as const

const Variable = Schema.Struct({
  variableId: Schema.optional(Schema.String),
  code_name: Schema.String,
  value: Schema.optional(Schema.Unknown)
})

/** `{"kind": "ZedQLQuery", "query": "SELECT …"}`; PostHog's name "HogQLQuery" is accepted too. */
export const ZedQLQueryNode = Schema.Struct({
  kind: Schema.Literal("ZedQLQuery", "HogQLQuery"),
  query: Schema.String,
  values: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  filters: Schema.optional(Schema.NullOr(QueryFilters)),
  variables: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Variable }))),
  modifiers: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  tags: Schema.optional(Schema.NullOr(Schema.Unknown)),
  explain: Schema.optional(Schema.NullOr(Schema.Boolean)),
  version: Schema.optional(Schema.NullOr(Schema.Number)),
  response: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "ZedQLQuery", parseOptions: Strict })
export type ZedQLQueryNode = typeof ZedQLQueryNode.Type

/** Dashboard-style filters that replace the query's own. */
const FiltersOverride = Schema.Struct({
  date_from: Schema.optional(Schema.NullOr(DateBoundText)),
  date_to: Schema.optional(Schema.NullOr(DateBoundText)),
  properties: QueryFilters.fields.properties,
  filterTestAccounts: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/** Other kinds (TrendsQuery…) are refused by name before the ZedQL query's own fields are checked. */
const QueryNode = Schema.Struct(
  {
    kind: Schema.String.pipe(
      check(
        (kind: string) => kind === "ZedQLQuery" || kind === "HogQLQuery",
        "unsupported_kind",
        (kind: string) =>
          `Query kind "${kind}" is not supported here: send {"kind": "ZedQLQuery", "query": "SELECT …"}.`
      )
    )
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).pipe(Schema.compose(ZedQLQueryNode, { strict: false }))

export const QueryRequest = Schema.Struct({
  query: QueryNode,
  refresh: Schema.optional(Schema.NullOr(Schema.Union(RefreshMode, Schema.Boolean))),
  client_query_id: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
  async: Schema.optional(Schema.NullOr(Schema.Boolean)),
  filters_override: Schema.optional(Schema.NullOr(FiltersOverride)),
  variables_override: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  limit_context: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "QueryRequest", parseOptions: Strict })
export type QueryRequest = typeof QueryRequest.Type

/** The query node with the request's overrides applied: what the result depends on. */
export const effectiveQuery = (request: QueryRequest): ZedQLQueryNode => {
  const { filters_override: filters, query, variables_override: variables } = request
  const withFilters: ZedQLQueryNode = filters
    ? {
        ...query,
        filters: {
          ...query.filters,
          ...(filters.date_from !== undefined || filters.date_to !== undefined
            ? { dateRange: { date_from: filters.date_from ?? null, date_to: filters.date_to ?? null } }
            : {}),
          ...(filters.properties ? { properties: filters.properties } : {}),
          ...(filters.filterTestAccounts != null ? { filterTestAccounts: filters.filterTestAccounts } : {})
        }
      }
    : query
  if (!variables || !withFilters.variables) return withFilters
  // Overrides name variables by id, as `{variableId, code_name, value}` or a bare value.
  const overridden = Object.fromEntries(
    Object.entries(withFilters.variables).map(([id, variable]) => {
      const override = variables[id] ?? variables[variable.variableId ?? id]
      if (override === undefined) return [id, variable]
      const value =
        typeof override === "object" && override !== null && "value" in override
          ? (override as { value: unknown }).value
          : override
      return [id, { ...variable, value }]
    })
  )
  return { ...withFilters, variables: overridden }
}

/** Placeholder values: `values`, and `variables.<code_name>` from the query's variables. */
export const placeholderValues = (node: ZedQLQueryNode): Record<string, unknown> => ({
  ...node.values,
  ...Object.fromEntries(Object.values(node.variables ?? {}).map((v) => [`variables.${v.code_name}`, v.value ?? null]))
})

import { Schema } from "effect"
import { check } from "../schema/fields.js"
import { DateBoundText, QueryFilters } from "../zedql/filters.js"
import { planProblem } from "../insights/planners/index.js"
import { RefreshMode } from "./cachePolicy.js"
import { DataTableNode, EventsQueryNode } from "./eventsQuery.js"
import { ActorsQueryNode, InsightActorsQueryNode } from "./actorsQuery.js"
import { INSIGHT_KINDS } from "./insightKinds.js"
import { WebOverviewQueryNode } from "./webOverview.js"
import { WebStatsTableQueryNode } from "./webStatsTable.js"
import { ExperimentQueryNode } from "./experimentQuery.js"

// The query API's request (PostHog's QueryRequest): ZedQL as the query language, and the insight
// kinds as saved insights hold them.

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

/** What `/query/` runs: a ZedQL query, an insight kind (or one in an InsightVizNode), an events table. */
export const SUPPORTED_KINDS = [
  "ZedQLQuery",
  "HogQLQuery",
  ...INSIGHT_KINDS,
  "InsightVizNode",
  "EventsQuery",
  "DataTableNode",
  "ActorsQuery",
  "InsightActorsQuery",
  "WebOverviewQuery",
  "WebStatsTableQuery",
  "ExperimentQuery"
]

const Rest = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** An insight kind's node, its fields as the planners take them. */
export const InsightSourceNode = Schema.Struct({ kind: Schema.Literal(...INSIGHT_KINDS) }, Rest)
export type InsightSourceNode = typeof InsightSourceNode.Type

const InsightVizNode = Schema.Struct({ kind: Schema.Literal("InsightVizNode"), source: InsightSourceNode }, Rest)

export type InsightNode = InsightSourceNode | typeof InsightVizNode.Type
export type TableNode = EventsQueryNode | typeof DataTableNode.Type
export type ActorsNode = ActorsQueryNode | InsightActorsQueryNode
type Node =
  | ZedQLQueryNode
  | InsightNode
  | TableNode
  | ActorsNode
  | WebOverviewQueryNode
  | WebStatsTableQueryNode
  | ExperimentQueryNode

/** Why an insight node cannot be planned: refused before anything runs or is cached. */
const unplannable = (node: Node): string | undefined => {
  if (!isInsight(node)) return undefined
  const source = insightSourceOf(node)
  const problem = planProblem(source)
  return problem === undefined ? undefined : `Invalid ${source.kind}: ${problem}`
}

/** Kinds `/query/` does not run are refused by name, with the list of those it does, before their fields are checked. */
const QueryNode = Schema.Struct(
  {
    kind: Schema.String.pipe(
      check(
        (kind: string) => SUPPORTED_KINDS.includes(kind),
        "unsupported_kind",
        (kind: string) => `Query kind "${kind}" is not supported here: send one of ${SUPPORTED_KINDS.join(", ")}.`
      )
    )
  },
  Rest
).pipe(
  Schema.compose(
    Schema.Union(
      ZedQLQueryNode,
      InsightSourceNode,
      InsightVizNode,
      EventsQueryNode,
      DataTableNode,
      ActorsQueryNode,
      InsightActorsQueryNode,
      WebOverviewQueryNode,
      WebStatsTableQueryNode,
      ExperimentQueryNode
    ),
    { strict: false }
  ),
  check(
    (node: Node) => unplannable(node) === undefined,
    "invalid_query",
    (node: Node) => unplannable(node)!
  )
)

/** Whether a request's node is a ZedQL query. */
export const isZedQL = (node: Node): node is ZedQLQueryNode => node.kind === "ZedQLQuery" || node.kind === "HogQLQuery"

/** Whether a request's node is an insight kind, bare or in an InsightVizNode. */
export const isInsight = (node: Node): node is InsightNode =>
  node.kind === "InsightVizNode" || (INSIGHT_KINDS as ReadonlyArray<string>).includes(node.kind)

/** The insight kind's node of a request: bare, or unwrapped from its InsightVizNode. */
export const insightSourceOf = (node: InsightNode): InsightSourceNode =>
  // An index signature beside `source` widens it to unknown in the type; the schema checked it.
  node.kind === "InsightVizNode" ? (node.source as InsightSourceNode) : node

/** Whether a request's node lists persons. */
export const isActors = (node: Node): node is ActorsNode =>
  node.kind === "ActorsQuery" || node.kind === "InsightActorsQuery"

/** A persons list as an ActorsQuery: an InsightActorsQuery sent alone is the source of one. */
export const actorsQueryOf = (node: ActorsNode): ActorsQueryNode =>
  node.kind === "ActorsQuery" ? node : { kind: "ActorsQuery", source: node }

/** Whether a request's node is an events table. */
export const isTable = (node: Node): node is TableNode => node.kind === "EventsQuery" || node.kind === "DataTableNode"

/** The EventsQuery of a request's table node: bare, or unwrapped from its DataTableNode. */
export const tableSourceOf = (node: TableNode): EventsQueryNode =>
  node.kind === "DataTableNode" ? (node.source as EventsQueryNode) : node

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

/** A request whose node is a ZedQL query. */
export type ZedQLRequest = QueryRequest & { readonly query: ZedQLQueryNode }

/** A request whose node is an insight kind. */
export type InsightRequest = QueryRequest & { readonly query: InsightNode }

/** A request whose node lists persons. */
export type ActorsRequest = QueryRequest & { readonly query: ActorsNode }

/** A request whose node is an events table. */
export type TableRequest = QueryRequest & { readonly query: TableNode }

/** The query node with the request's overrides applied: what the result depends on. */
export const effectiveQuery = (request: ZedQLRequest): ZedQLQueryNode => {
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

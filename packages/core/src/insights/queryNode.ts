import { isObject } from "../domain/json.js"
import { Either, Schema } from "effect"
import { toValidationError } from "../schema/decode.js"
import { INSIGHT_KINDS as KINDS } from "../queries/insightKinds.js"
import { type QueryRequest, ZedQLQueryNode } from "../queries/request.js"
import { planProblem } from "./planners/index.js"

// What an insight's `query` may hold: it is stored as sent, so only its shape is checked here:
// a known wrapper node around a known source kind; a ZedQL source must be one the query API runs.

const INSIGHT_KINDS = new Set<string>(KINDS)
/** Insight kinds without a `series` list. */
const SERIES_FREE = new Set(["RetentionQuery", "PathsQuery"])
const SQL_KINDS = new Set(["ZedQLQuery", "HogQLQuery"])
const WRAPPERS: Record<string, ReadonlySet<string>> = {
  InsightVizNode: INSIGHT_KINDS,
  DataVisualizationNode: SQL_KINDS,
  DataTableNode: SQL_KINDS
}

type Json = Record<string, unknown>

const list = (kinds: Iterable<string>) => [...kinds].join(", ")

const decodeSql = Schema.decodeUnknownEither(ZedQLQueryNode, { errors: "first" })

/** Why `node` is not an insight query node, or undefined when it is one. */
export const queryNodeProblem = (node: unknown): string | undefined => {
  if (!isObject(node)) return "The query must be a query node object."
  const inner = typeof node["kind"] === "string" ? WRAPPERS[node["kind"]] : undefined
  if (inner === undefined)
    return `Unknown query kind ${JSON.stringify(node["kind"])}: expected one of ${list(Object.keys(WRAPPERS))}.`
  const source = node["source"]
  if (!isObject(source) || typeof source["kind"] !== "string" || !inner.has(source["kind"])) {
    return `A ${String(node["kind"])} needs a source of kind ${list(inner)}.`
  }
  if (SQL_KINDS.has(source["kind"])) {
    const decoded = decodeSql(source)
    if (Either.isLeft(decoded)) {
      const error = toValidationError(decoded.left, ["source"])
      return `Invalid ${source["kind"]} at ${error.attr}: ${error.detail}`
    }
  }
  if (INSIGHT_KINDS.has(source["kind"]) && !SERIES_FREE.has(source["kind"]) && !Array.isArray(source["series"])) {
    return `A ${source["kind"]} needs a "series" list.`
  }
  const unplanned = planProblem({ ...source, kind: source["kind"] })
  return unplanned === undefined ? undefined : `Invalid ${source["kind"]}: ${unplanned}`
}

/** The ZedQL source of a table or visualization node, which the query API can run as it is. */
export const sqlSource = (node: unknown): Either.Either<ZedQLQueryNode, string> | undefined => {
  if (!isObject(node) || !isObject(node["source"]) || !SQL_KINDS.has(String(node["source"]["kind"]))) return undefined
  return Either.mapLeft(decodeSql(node["source"]), (error) => toValidationError(error).detail)
}

/** The fields of `target` (a source, or a ZedQL source's `filters`) the dashboard's filters change. */
const applied = (target: Json, filters: Json): Json => {
  const bounds = Object.fromEntries(
    ["date_from", "date_to"].filter((k) => filters[k] != null).map((k) => [k, filters[k]])
  )
  const properties = Array.isArray(filters["properties"]) ? filters["properties"] : []
  return {
    ...target,
    ...(Object.keys(bounds).length === 0
      ? {}
      : { dateRange: { ...(isObject(target["dateRange"]) ? target["dateRange"] : {}), ...bounds } }),
    ...(properties.length === 0
      ? {}
      : { properties: [...(Array.isArray(target["properties"]) ? target["properties"] : []), ...properties] })
  }
}

/**
 * A dashboard's date range and properties applied to a query node (`from_dashboard`): the date
 * range replaces the node's bounds it sets, the properties are added to the node's own.
 */
export const withDashboardFilters = (node: unknown, filters: Json): unknown => {
  const nothing =
    filters["date_from"] == null &&
    filters["date_to"] == null &&
    !(Array.isArray(filters["properties"]) && filters["properties"].length > 0)
  if (nothing || !isObject(node) || !isObject(node["source"])) return node
  const source = node["source"]
  // ZedQL sources keep their filters under `filters`; insight kinds at the top of the source.
  return SQL_KINDS.has(String(source["kind"]))
    ? {
        ...node,
        source: { ...source, filters: applied(isObject(source["filters"]) ? source["filters"] : {}, filters) }
      }
    : { ...node, source: applied(source, filters) }
}

/**
 * The query API's `filters_override` on an insight kind's source, as a dashboard's filters apply,
 * and its test-account switch in place of the source's.
 */
export const withFiltersOverride = (source: Json, override: QueryRequest["filters_override"]): Json => {
  if (override == null) return source
  const { filterTestAccounts, ...filters } = override
  const node = withDashboardFilters({ source }, filters) as { readonly source: Json }
  return filterTestAccounts == null ? node.source : { ...node.source, filterTestAccounts }
}

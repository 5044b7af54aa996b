import { Effect } from "effect"
import { isObject } from "../domain/json.js"
import type { Project } from "../domain/models.js"
import { InsightCompute } from "../insights/compute.js"
import type { InsightPlan } from "../insights/plan.js"
import type { QueryRunError } from "../queries/runner.js"
import { QueryRunner } from "../queries/runner.js"
import type { EventsQueryNode } from "../queries/eventsQuery.js"
import { placeholderValues, type ZedQLQueryNode } from "../queries/request.js"
import { PersonStore, type PersonQuery } from "../services/PersonStore.js"
import { PropertyDefinitions } from "../services/PropertyDefinitions.js"
import type { StorageError } from "../services/StorageError.js"
import type { Expr, OrderExpr, SelectLike, SelectQuery } from "../zedql/ast.js"
import * as Q from "../zedql/build.js"

// Where an export's rows come from, a page at a time, so that no run holds more than a page. Where
// the order is Zed's own, by keyset, each page starting after the last row read, so every page costs
// the same: the persons list (its filters as the list takes them; created_at, id), an events table
// in its default order (time, uuid; see keyedEvents) and a ZedQL query of events ordered by time and
// uuid (keyedZedQL). By LIMIT/OFFSET in the query's own order otherwise: another ZedQL query or
// events table, or an actors node (an arbitrary order of expressions the caller wrote, whose rows
// need not carry a unique key to resume from). An insight's result is computed whole (a summary,
// small by nature).

export type ExportSource =
  | { readonly _tag: "ZedQL"; readonly node: ZedQLQueryNode; readonly tree: SelectLike }
  | {
      readonly _tag: "Planned"
      /** The node's plan for one page. */
      readonly plan: (limit: number, offset: number) => Effect.Effect<InsightPlan, QueryRunError>
      /** Rows the node asks for in all (its own `limit`), and from where; every row when null. */
      readonly limit: number | null
      readonly offset: number
    }
  | {
      readonly _tag: "Keyed"
      /** The plan of `limit` rows after `after` (from the first when null), each ending with its key (see keyedEvents). */
      readonly plan: (limit: number, after: EventKey | null) => Effect.Effect<InsightPlan, QueryRunError>
    }
  | { readonly _tag: "Persons"; readonly filters: Omit<PersonQuery, "limit" | "offset"> }
  | { readonly _tag: "Insight"; readonly query: unknown }

export interface RowPage {
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
}

type Emit = (page: RowPage) => Effect.Effect<void, StorageError>

const constantOf = (expr: unknown): number | null =>
  isObject(expr) && expr["node"] === "Constant" && typeof expr["value"] === "number" ? expr["value"] : null

/**
 * One page of a statement: its own LIMIT/OFFSET replaced when they are plain numbers (the page
 * stays within them), the statement read as a subquery otherwise.
 */
export const zedqlPage = (tree: SelectLike, limit: number, offset: number): SelectLike =>
  tree.node === "SelectQuery" && (tree.limit == null || constantOf(tree.limit) !== null)
    ? { ...tree, limit: Q.constant(limit), offset: Q.constant(offset) }
    : {
        node: "SelectQuery",
        select: [Q.field("*")],
        select_from: { node: "JoinExpr", table: tree },
        limit: Q.constant(limit),
        offset: Q.constant(offset)
      }

/** Where a page of events resumes: after the event with this time and uuid, as the rows give them. */
export interface EventKey {
  readonly timestamp: string
  readonly uuid: string
}

const KEY_COLUMNS = ["timestamp", "toString(uuid)"]

/**
 * An events table in its default order (newest first, no `orderBy` but that) and with no `limit` or
 * `offset` of its own, as pages read by keyset: ordered by time then uuid, its key selected after
 * its own columns, and each page after the last key read. Null for another table (its order is the
 * caller's, so it is paged by offset).
 */
export const keyedEvents = (node: EventsQueryNode) => {
  const order = node.orderBy ?? []
  if (node.limit != null || node.offset != null) return null
  if (order.length > 1 || (order.length === 1 && !/^\s*timestamp\s+desc\s*$/i.test(order[0]!))) return null
  return (limit: number, after: EventKey | null): EventsQueryNode => {
    // The key comes from the store's own rows; it is checked all the same before it is written into ZedQL.
    if (after !== null && !(/^[\d\-:.T +Z]+$/.test(after.timestamp) && /^[\da-f-]{36}$/i.test(after.uuid)))
      throw new Error(`not an event key: ${JSON.stringify(after)}`)
    const at = after === null ? "" : `toDateTime('${after.timestamp}')`
    return {
      ...node,
      select: [...node.select, ...KEY_COLUMNS],
      orderBy: KEY_COLUMNS.map((c) => `${c} DESC`),
      where: [
        ...(node.where ?? []),
        // The bound on time alone lets the store start at the key through its time index (see keyedZedQL).
        ...(after === null
          ? []
          : [`timestamp <= ${at}`, `timestamp < ${at} OR (timestamp = ${at} AND toString(uuid) < '${after.uuid}')`])
      ],
      limit,
      offset: 0
    }
  }
}

const isField = (expr: Expr, name: string) => expr.node === "Field" && expr.chain.length === 1 && expr.chain[0] === name

/**
 * A ZedQL statement of events (the table alone, no alias) ordered by time then uuid, both one way,
 * with no LIMIT, OFFSET, grouping, DISTINCT or window of its own, as pages read by keyset: a row a uuid,
 * so the order is total and each page resumes after the last key read, at the same cost, where
 * OFFSET n has the store read and sort n rows before a page (on ClickHouse every page a scan of the
 * whole table). The key is selected after the statement's own columns, and the uuid is ordered and
 * compared as text, as keyedEvents does: on chDB, `uuid > toUUID(…)` disagrees with ORDER BY uuid
 * (it weighs the uuid's halves the other way round), so a key compared as a UUID repeats and skips
 * rows at a page's edge.
 * Null for any other statement (paged by offset).
 */
export const keyedZedQL = (tree: SelectLike) => {
  if (tree.node !== "SelectQuery") return null
  const from = tree.select_from
  const order = tree.order_by ?? []
  const plain =
    from != null &&
    from.table?.node === "Field" &&
    isField(from.table, "events") &&
    from.alias == null &&
    from.next_join == null &&
    from.sample == null &&
    tree.ctes == null &&
    tree.distinct !== true &&
    tree.array_join_op == null &&
    tree.group_by == null &&
    tree.having == null &&
    tree.limit == null &&
    tree.offset == null &&
    tree.limit_by == null &&
    tree.window_exprs == null &&
    tree.qualify == null &&
    // A window function's value depends on the rows around it, which a page's condition would drop.
    !JSON.stringify(tree.select).includes('"WindowFunction"')
  if (!plain || order.length !== 2 || !isField(order[0]!.expr, "timestamp") || !isField(order[1]!.expr, "uuid"))
    return null
  if (order[1]!.order !== order[0]!.order) return null
  const direction = order[0]!.order
  const key = [Q.field("timestamp"), Q.call("toString", [Q.field("uuid")])]
  return (limit: number, after: EventKey | null): SelectQuery => {
    const at = after === null ? null : Q.call("toDateTime", [Q.constant(after.timestamp)])
    const beyond =
      after === null || at === null
        ? []
        : // The bound on time alone, beside the key's condition, lets the store start at the key
          // through its time index: without it PostgreSQL read the table from its start for every page
          // (5.3 s for a page at the five millionth row, 19 ms with it), an export quadratic in its rows.
          direction === "DESC"
          ? [
              Q.expr`timestamp <= ${at}`,
              Q.expr`timestamp < ${at} OR (timestamp = ${at} AND toString(uuid) < ${after.uuid})`
            ]
          : [
              Q.expr`timestamp >= ${at}`,
              Q.expr`timestamp > ${at} OR (timestamp = ${at} AND toString(uuid) > ${after.uuid})`
            ]
    return {
      ...tree,
      select: [...tree.select, ...key],
      where: Q.and([...(tree.where == null ? [] : [tree.where]), ...beyond]),
      order_by: key.map((expr): OrderExpr => ({ node: "OrderExpr", expr, order: direction })),
      limit: Q.constant(limit)
    }
  }
}

/** What a ZedQL statement asks for in all: its own LIMIT (a plain number) and OFFSET. */
const ownRange = (tree: SelectLike) =>
  tree.node === "SelectQuery"
    ? { limit: constantOf(tree.limit), offset: constantOf(tree.offset) ?? 0 }
    : { limit: null, offset: 0 }

/**
 * Pages of `page` rows from `offset` until `limit` rows (all when null) or a short page:
 * `read(limit, offset)` gives one page.
 */
const paged = <E, R>(
  range: { readonly limit: number | null; readonly offset: number },
  page: number,
  read: (limit: number, offset: number) => Effect.Effect<RowPage, E, R>,
  emit: Emit
) =>
  Effect.gen(function* () {
    let done = 0
    for (;;) {
      const want = range.limit === null ? page : Math.min(page, range.limit - done)
      const rows = yield* read(want, range.offset + done)
      yield* emit(rows)
      done += rows.rows.length
      if (rows.rows.length < want || want === 0) return
    }
  })

/**
 * Pages of `page` rows by keyset until a short page: `read(limit, after)` gives the rows after a
 * key, each ending with its key (time, uuid), which is not emitted.
 */
const byKey = <E, R>(
  page: number,
  read: (limit: number, after: EventKey | null) => Effect.Effect<RowPage, E, R>,
  emit: Emit
) =>
  Effect.gen(function* () {
    let after: EventKey | null = null
    for (;;) {
      const { columns, rows }: RowPage = yield* read(page, after)
      const own = columns.length - KEY_COLUMNS.length
      yield* emit({ columns: columns.slice(0, own), rows: rows.map((row) => row.slice(0, own)) })
      if (rows.length < page) return
      const key: ReadonlyArray<unknown> = rows[rows.length - 1]!.slice(own)
      after = { timestamp: String(key[0]), uuid: String(key[1]) }
    }
  })

/** A person as a row: the list's fields, then each person property known to the project. */
const personRows = (project: Project, filters: ExportSource & { _tag: "Persons" }, page: number, emit: Emit) =>
  Effect.gen(function* () {
    const keys = (yield* (yield* PropertyDefinitions).list(project.id))
      .filter((d) => d.owner === "person")
      .map((d) => d.key)
      .sort()
    const columns = ["id", "distinct_ids", "created_at", "is_identified", ...keys.map((k) => `properties.${k}`)]
    const persons = yield* PersonStore
    let beyond: { readonly created_at: Date; readonly id: number } | undefined
    for (;;) {
      const { results } = yield* persons.list(project.id, { ...filters.filters, limit: page, offset: 0, beyond })
      yield* emit({
        columns,
        rows: results.map((p) => [
          p.uuid,
          p.distinct_ids,
          p.created_at.toISOString(),
          p.is_identified,
          ...keys.map((k) => p.properties[k] ?? null)
        ])
      })
      if (results.length < page) return
      beyond = results[results.length - 1]!
    }
  })

/**
 * An insight's result as a table: a series a row (its label, then a value a date) for trends and
 * other series results, the result's own columns for a table, one row per object otherwise.
 */
export const resultTable = (result: unknown, columns: ReadonlyArray<string> | null): RowPage => {
  const items = Array.isArray(result) ? result : [result]
  if (columns !== null && items.every(Array.isArray)) return { columns, rows: items as Array<Array<unknown>> }
  const first = items.find(isObject)
  if (first !== undefined && Array.isArray(first["data"]) && Array.isArray(first["labels"])) {
    const labels = first["labels"] as ReadonlyArray<unknown>
    return {
      columns: ["series", ...labels.map(String)],
      rows: items.map((item) => [
        isObject(item) ? (item["label"] ?? null) : null,
        ...(isObject(item) && Array.isArray(item["data"]) ? item["data"] : [])
      ])
    }
  }
  if (first !== undefined) {
    const keys = [...new Set(items.filter(isObject).flatMap((item) => Object.keys(item)))]
    return { columns: keys, rows: items.map((item) => keys.map((k) => (isObject(item) ? (item[k] ?? null) : null))) }
  }
  return { columns: ["result"], rows: items.map((item) => [item]) }
}

/** A plan's rows, shaped as the query API answers them, with its columns. */
const planRows = (project: Project, plan: InsightPlan) =>
  Effect.gen(function* () {
    const runner = yield* QueryRunner
    const results: Array<ReadonlyArray<ReadonlyArray<unknown>>> = []
    for (const query of plan.queries) results.push((yield* runner.table(project, query, plan)).rows)
    const fields = plan.fields?.(results, [])
    return {
      columns: (fields?.["columns"] as ReadonlyArray<string> | undefined) ?? [],
      rows: plan.shape(results) as ReadonlyArray<ReadonlyArray<unknown>>
    }
  })

/** Reads the source's rows `page` at a time, giving each page to `emit`. */
export const readRows = (project: Project, source: ExportSource, page: number, emit: Emit) =>
  Effect.gen(function* () {
    const runner = yield* QueryRunner
    switch (source._tag) {
      case "ZedQL": {
        const options = { values: placeholderValues(source.node), filters: source.node.filters ?? undefined }
        const keyed = keyedZedQL(source.tree)
        if (keyed !== null)
          return yield* byKey(page, (limit, after) => runner.table(project, keyed(limit, after), options), emit)
        return yield* paged(
          ownRange(source.tree),
          page,
          (limit, offset) => runner.table(project, zedqlPage(source.tree, limit, offset), options),
          emit
        )
      }
      case "Planned":
        return yield* paged(
          source,
          page,
          (limit, offset) => Effect.flatMap(source.plan(limit, offset), (plan) => planRows(project, plan)),
          emit
        )
      case "Keyed":
        return yield* byKey(
          page,
          (limit, after) => Effect.flatMap(source.plan(limit, after), (plan) => planRows(project, plan)),
          emit
        )
      case "Persons":
        return yield* personRows(project, source, page, emit)
      case "Insight": {
        const computed = yield* (yield* InsightCompute).read(project, source.query, "blocking")
        return yield* emit(resultTable(computed.result, computed.columns))
      }
    }
  })

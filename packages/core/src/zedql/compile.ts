import { Effect, Either } from "effect"
import type { PropertyOwner, PropertyType } from "../services/PropertyDefinitions.js"
import type { SelectLike } from "./ast.js"
import { type ZedQLError, ZedQLQueryError } from "./errors.js"
import { filterConditions, type QueryFilters, UnsupportedFilter } from "./filters.js"
import { formatSelect } from "./format.js"
import { outputColumns, type RExpr, type RQuery } from "./ir.js"
import { parseSelect } from "./parse.js"
import type { GrammarRefused } from "../grammar/pool.js"
import { postgres } from "./postgres/print.js"
import { type Dialect, ZedQLPrintError } from "./printer.js"
import { type ActionMatch, resolveQuery } from "./resolve.js"
import type { ActionStep } from "../actions/actionEntity.js"
import { actionCondition, UNSUPPORTED_STEP } from "./actions.js"
import type { CohortRef } from "./cohorts.js"
import { T, type ZType } from "./types.js"

// ZedQL text (or a tree Zed built) in, one SQL statement out: parse, resolve (names, types, project scoping), bound the
// result size, print for a dialect.

/** Rows a query returns when it says no LIMIT; more are fetched to tell whether there are more. */
export const QUERY_DEFAULT_LIMIT = 100
/** The most rows any query returns, whatever its LIMIT says. */
export const QUERY_MAX_LIMIT = 50_000

export interface CompileOptions {
  readonly projectId: number
  readonly timezone: string
  readonly values?: Readonly<Record<string, unknown>> | undefined
  readonly filters?: QueryFilters | undefined
  readonly propertyType?: ((owner: PropertyOwner, key: string) => PropertyType | undefined) | undefined
  /** The steps of the project's action with this id, for `matchesAction(id)`. */
  readonly actionSteps?: ((id: number) => ReadonlyArray<ActionStep> | undefined) | undefined
  /** The uuids of the persons in the project's cohort with this id or name, for `IN COHORT`. */
  readonly cohortMembers?: ((ref: CohortRef) => ReadonlyArray<string> | undefined) | undefined
  readonly dialect?: Dialect | undefined
}

const actionMatch = (steps: ReadonlyArray<ActionStep> | undefined): ActionMatch | undefined => {
  if (steps === undefined) return undefined
  const condition = actionCondition(steps)
  return condition === undefined ? { unsupported: UNSUPPORTED_STEP } : { condition }
}

export interface CompiledZedQL {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ZType }>
  /** Without a LIMIT of its own the query pages: `limit` rows from `offset`, one more fetched to know. */
  readonly page: { readonly limit: number; readonly offset: number } | null
  /** The query as run, normalized. */
  readonly zedql: string
}

const constant = (value: number): RExpr => ({ kind: "const", value, type: T.Int })

const limitOf = (query: RQuery): number | null => (query.limit?.kind === "const" ? Number(query.limit.value) : null)
const offsetOf = (query: RQuery): number => (query.offset?.kind === "const" ? Number(query.offset.value) : 0)

/** The query with its row limit made explicit: the default (plus one) without one, the cap over it. */
const bounded = (
  query: RQuery
): { readonly query: RQuery; readonly page: CompiledZedQL["page"]; readonly applied: number } => {
  const own = limitOf(query)
  if (own === null)
    return {
      query: { ...query, limit: constant(QUERY_DEFAULT_LIMIT + 1) },
      page: { limit: QUERY_DEFAULT_LIMIT, offset: offsetOf(query) },
      applied: QUERY_DEFAULT_LIMIT
    }
  const applied = Math.min(own, QUERY_MAX_LIMIT)
  return { query: { ...query, limit: constant(applied) }, page: null, applied }
}

export const compileZedQL = (
  text: string,
  options: CompileOptions
): Effect.Effect<CompiledZedQL, ZedQLError | GrammarRefused> =>
  Effect.flatMap(parseSelect(text), (ast) => compileZedQLTree(ast, options))

/** A statement Zed built as a tree (see build.ts): compiled as it is, nothing parsed. */
export const compileZedQLTree = (ast: SelectLike, options: CompileOptions): Effect.Effect<CompiledZedQL, ZedQLError> =>
  Effect.suspend(() => {
    let filters
    try {
      filters = filterConditions(options.filters)
    } catch (error) {
      if (error instanceof UnsupportedFilter)
        return Effect.fail(new ZedQLQueryError({ message: error.message, span: null }))
      throw error
    }
    const resolved = resolveQuery(ast, {
      propertyType: options.propertyType ?? (() => undefined),
      values: options.values ?? {},
      filters,
      action: (id) => actionMatch(options.actionSteps?.(id)),
      cohort: (ref) => options.cohortMembers?.(ref)
    })
    if (Either.isLeft(resolved)) return Effect.fail(resolved.left)
    const { applied, page, query } = bounded(resolved.right)
    const dialect = options.dialect ?? postgres
    try {
      const printed = dialect.print(query, { projectId: options.projectId, timezone: options.timezone })
      return Effect.succeed({
        sql: printed.sql,
        params: printed.params,
        columns: outputColumns(query).map((c) => ({ name: c.name, type: c.expr.type })),
        page,
        zedql: formatSelect(ast, applied)
      })
    } catch (error) {
      if (error instanceof ZedQLPrintError)
        return Effect.fail(new ZedQLQueryError({ message: error.message, span: null }))
      throw error
    }
  })

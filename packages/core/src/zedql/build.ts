import { Schema } from "effect"
import * as A from "./ast.js"
import { TEMPLATES } from "./templates.generated.js"

// Zed's own statements as syntax trees, so that nothing Zed plans is parsed again when it runs.
// A tagged template is parsed once per call site, its `${…}` holes as placeholders `{__n}`; each
// call puts the values into a copy of that tree: text and numbers as constants (a value never
// becomes syntax), trees as themselves, lists of trees spliced into the list the hole is in
// (columns, arguments, GROUP BY). Placeholders with names (`{now}`) stay for the compiler's values.

/** What a hole takes. */
export type Value = A.Expr | string | number | boolean | null | ReadonlyArray<A.Expr>

const HOLE = /^__(\d+)$/

const decodeSelect = Schema.decodeUnknownSync(A.SelectSchema)
const decodeExpr = Schema.decodeUnknownSync(A.ExpressionSchema)

// Templates are parsed when Zed is built (scripts/zedqlTemplates.js), so that planners stay pure and
// synchronous without a parser on this thread.
const parsed = <T>(kind: "select" | "expr", decode: (json: unknown) => T) => {
  const templates = new WeakMap<TemplateStringsArray, T>()
  return (strings: TemplateStringsArray): T => {
    let tree = templates.get(strings)
    if (tree === undefined) {
      const text = strings.reduce((text, s, i) => `${text}{__${i - 1}}${s}`)
      const json = Object.hasOwn(TEMPLATES[kind], text) ? TEMPLATES[kind][text] : undefined
      if (json === undefined) throw new Error(`A ZedQL template was not parsed ahead (run npm run build): ${text}`)
      tree = decode(json)
      templates.set(strings, tree)
    }
    return tree
  }
}

/** A value as a constant. */
export const constant = (value: string | number | boolean | null): A.Constant => ({ node: "Constant", value })

const isNode = (v: unknown): v is { readonly node: string } => typeof v === "object" && v !== null && "node" in v

/** The name of a placeholder `{name}`, or undefined for any other node. */
const placeholderName = (v: unknown): string | undefined => {
  if (!isNode(v) || v.node !== "Placeholder") return undefined
  const { expr } = v as A.Placeholder
  return expr.node === "Field" && expr.chain.length === 1 ? String(expr.chain[0]) : undefined
}

/** A copy of a tree with the placeholders `lookup` knows replaced, without the template's positions. */
const substitute = (tree: unknown, lookup: (name: string) => Value | undefined): unknown => {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      return v.flatMap((item) => {
        const name = placeholderName(item)
        const value = name === undefined ? undefined : lookup(name)
        return Array.isArray(value) ? value : [walk(item)]
      })
    }
    if (typeof v !== "object" || v === null) return v
    const name = placeholderName(v)
    const value = name === undefined ? undefined : lookup(name)
    if (value !== undefined) {
      if (Array.isArray(value)) throw new Error(`A list of trees cannot stand where {${name}} is`)
      return isNode(value) ? value : constant(value as string | number | boolean | null)
    }
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "start" && k !== "end")
        .map(([k, x]) => [k, walk(x)])
    )
  }
  return walk(tree)
}

const filled =
  <T>(template: (strings: TemplateStringsArray) => T) =>
  (strings: TemplateStringsArray, ...values: ReadonlyArray<Value>): T =>
    substitute(template(strings), (name) => {
      const hole = HOLE.exec(name)
      return hole ? values[Number(hole[1])] : undefined
    }) as T

/** A statement from a template: ``select`SELECT count() FROM events WHERE event = ${name}` ``. */
export const select = filled(parsed("select", decodeSelect))

/** An expression from a template: ``expr`event = ${name}` ``. */
export const expr = filled(parsed("expr", decodeExpr))

/** A tree with its named placeholders' values written in (as the query is shown). */
export const withValues = <T extends A.Expr>(
  tree: T,
  values: Readonly<Record<string, string | number | boolean | null>>
): T => substitute(tree, (name) => (Object.hasOwn(values, name) ? values[name] : undefined)) as T

/** A named placeholder, given its value when compiled: `{now}`. */
export const placeholder = (name: string): A.Placeholder => ({
  node: "Placeholder",
  expr: { node: "Field", chain: [name] }
})

export const call = (name: string, args: ReadonlyArray<A.Expr>): A.Call => ({ node: "Call", name, args })

// Names a template cannot take as holes (generated columns `t0 … tn`, their aliases, lambda parameters).

/** A column or a table's column: `field("paths", "t0")` is `paths.t0`. */
export const field = (...chain: ReadonlyArray<string>): A.Field => ({ node: "Field", chain })

/** `expr AS name`. */
export const alias = (expr: A.Expr, name: string): A.Alias => ({ node: "Alias", alias: name, expr })

/** `(args) -> expr`, its parameters read in `expr` as fields. */
export const lambda = (args: ReadonlyArray<string>, expr: A.Expr): A.Lambda => ({ node: "Lambda", args, expr })

/** All of the conditions (true without any). */
export const and = (conditions: ReadonlyArray<A.Expr>): A.Expr =>
  conditions.length === 0
    ? constant(true)
    : conditions.length === 1
      ? conditions[0]!
      : { node: "And", exprs: conditions }

/** Any of the conditions (false without any). */
export const or = (conditions: ReadonlyArray<A.Expr>): A.Expr =>
  conditions.length === 0
    ? constant(false)
    : conditions.length === 1
      ? conditions[0]!
      : { node: "Or", exprs: conditions }

/**
 * `WITH name AS (…), … SELECT …`: named statements before a statement, each able to read those
 * before it, so that a pipeline of steps reads as a list rather than subqueries nested deep.
 */
export const withStatements = (
  named: ReadonlyArray<readonly [name: string, query: A.SelectLike]>,
  query: A.SelectLike
): A.SelectQuery => {
  if (query.node !== "SelectQuery") throw new Error("WITH goes before a SELECT, not a UNION")
  return {
    ...query,
    ctes: [
      ...named.map(([name, expr]): A.CTE => ({ node: "CTE", name, expr, cte_type: "subquery" })),
      ...(query.ctes ?? [])
    ]
  }
}

/** Statements one after another, their rows together. */
export const unionAll = (first: A.SelectLike, ...rest: ReadonlyArray<A.SelectLike>): A.SelectLike =>
  rest.length === 0
    ? first
    : {
        node: "SelectSetQuery",
        initial_select_query: first,
        subsequent_select_queries: rest.map((q) => ({
          node: "SelectSetNode",
          select_query: q,
          set_operator: "UNION ALL"
        }))
      }

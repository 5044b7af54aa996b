import type * as A from "../../zedql/ast.js"
import * as Q from "../../zedql/build.js"
import { formatSelect } from "../../zedql/format.js"
import type { InsightContext } from "../plan.js"

// Pieces of the planned statements, built as trees (values are constants, never syntax), and the
// statements as users see them.

/** An event or person property, read as text (`properties['$browser']`). */
export const propertyText = (key: string, type: "event" | "person"): A.Expr =>
  type === "person" ? Q.expr`toString(person.properties[${key}])` : Q.expr`toString(properties[${key}])`

/** An instant as a ZedQL DateTime. */
export const dateTime = (ms: number): A.Expr => Q.expr`toDateTime(${new Date(ms).toISOString()})`

/** The moment a plan is made for, a placeholder: the statements stay the same from one moment to the next. */
export const NOW = Q.call("toDateTime", [Q.placeholder("now")])

/** The values of the plans' placeholders. */
export const planValues = (ctx: InsightContext) => ({ now: ctx.now.toISOString() })

/** Statements as the insight's `zedql` shows them: written out, the placeholders' values in them. */
export const shownStatements = (
  queries: ReadonlyArray<A.SelectLike>,
  values: Readonly<Record<string, string>>,
  separator: string
): string => queries.map((q) => formatSelect(Q.withValues(q, values))).join(separator)

/** Rows any planned statement may return: ZedQL's cap, so that none is cut at the default 100. */
export const ROWS = 50_000

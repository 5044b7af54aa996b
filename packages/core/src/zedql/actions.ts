import type { ActionStep } from "../actions/actionEntity.js"
import type * as A from "./ast.js"
import * as Q from "./build.js"
import { propertyCondition } from "./filters.js"

// `matchesAction(id)` in ZedQL: an action's steps as a condition on events, built as syntax so that
// it is resolved like the rest of the query. An event matches when it matches any step, and a step
// when every condition it gives holds.

const compare = (op: A.CompareOp, left: A.Expr, right: A.Expr): A.Expr => ({
  node: "CompareOperation",
  op,
  left,
  right
})

/** LIKE's own characters, escaped, so that `contains` looks for the text as it is. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const URL = Q.field("properties", "$current_url")

const urlCondition = (url: string, matching: ActionStep["url_matching"]): A.Expr => {
  switch (matching ?? "contains") {
    case "exact":
      return compare("==", URL, Q.constant(url))
    case "regex":
      return compare("=~", URL, Q.constant(url))
    case "contains":
      return compare("like", URL, Q.constant(`%${likeEscaped(url)}%`))
  }
}

/** Steps on the autocaptured element (its text, link, tag, a selector), which this does not read yet. */
export const elementFields = ["text", "href", "tag_name", "selector"] as const

/** The condition a step stands for; undefined when it names the autocaptured element (not supported). */
const stepCondition = (step: ActionStep): A.Expr | undefined => {
  if (elementFields.some((f) => step[f] !== null)) return undefined
  return Q.and([
    ...(step.event === null ? [] : [compare("==", Q.field("event"), Q.constant(step.event))]),
    ...(step.url === null ? [] : [urlCondition(step.url, step.url_matching)]),
    ...(step.properties ?? []).map(propertyCondition)
  ])
}

/** The condition an action's steps stand for (false without steps); undefined when a step cannot be read. */
export const actionCondition = (steps: ReadonlyArray<ActionStep>): A.Expr | undefined => {
  const conditions = steps.map(stepCondition)
  return conditions.every((c) => c !== undefined) ? Q.or(conditions as Array<A.Expr>) : undefined
}

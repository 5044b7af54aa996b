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

// The autocaptured element is read from the elements chain as posthog-js writes it: elements from
// the clicked one outwards, `;` between them, each `tag.class…:` then attributes `name="value"` one
// after another (quotes in values escaped), among them `text` and `href`.
const CHAIN = Q.field("elements_chain")

/** Text taken literally in a regular expression (RE2's and PostgreSQL's alike). */
const literal = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&")

/** Whether an element of the chain has the attribute equal to (or holding) `value`; undefined for a regex. */
const attribute = (name: "text" | "href", value: string, matching: ActionStep["text_matching"]) => {
  if (matching === "regex") return undefined
  const escaped = literal(value.replaceAll('"', '\\"'))
  const pattern = matching === "contains" ? `[^"]*${escaped}[^"]*` : escaped
  return compare("=~", CHAIN, Q.constant(`(^|[:"])${name}="${pattern}"`))
}

/** What `matchesAction` does not read yet: a CSS selector, and a regular expression on the element's text or link. */
export const UNSUPPORTED_STEP =
  "matchesAction cannot read a step's selector, nor a regular expression on the element's text or link, yet"

/** The condition a step stands for; undefined when it asks for what is not read yet. */
const stepCondition = (step: ActionStep): A.Expr | undefined => {
  const conditions = [
    ...(step.event === null ? [] : [compare("==", Q.field("event"), Q.constant(step.event))]),
    ...(step.url === null ? [] : [urlCondition(step.url, step.url_matching)]),
    ...(step.text === null ? [] : [attribute("text", step.text, step.text_matching)]),
    ...(step.href === null ? [] : [attribute("href", step.href, step.href_matching)]),
    // Any element of the chain with this tag, as PostHog matches it.
    ...(step.tag_name === null ? [] : [compare("=~", CHAIN, Q.constant(`(^|;)${literal(step.tag_name)}([.:;]|$)`))]),
    ...(step.properties ?? []).map(propertyCondition)
  ]
  return step.selector !== null || conditions.some((c) => c === undefined)
    ? undefined
    : Q.and(conditions as Array<A.Expr>)
}

/** The condition an action's steps stand for (false without steps); undefined when a step cannot be read. */
export const actionCondition = (steps: ReadonlyArray<ActionStep>): A.Expr | undefined => {
  const conditions = steps.map(stepCondition)
  return conditions.every((c) => c !== undefined) ? Q.or(conditions as Array<A.Expr>) : undefined
}

import type * as A from "./ast.js"
import * as Q from "./build.js"

// `person_id IN COHORT 12` / `IN COHORT 'Name'` in ZedQL: the cohort's persons now (as
// `…/cohorts/:id/persons/` lists them), written into the query as a list of person uuids. The
// cohorts a statement names are found before it is compiled, so only their members are worked out.

/** A cohort as `IN COHORT` names it: its id or its name. */
export type CohortRef = number | string

const isCohortTest = (v: unknown): v is A.CompareOperation =>
  typeof v === "object" &&
  v !== null &&
  (v as { node?: unknown }).node === "CompareOperation" &&
  ((v as A.CompareOperation).op === "in cohort" || (v as A.CompareOperation).op === "not in cohort")

/** The cohort an `IN COHORT` names; undefined when its right side is neither an id nor a name. */
export const cohortRefOf = (node: A.CompareOperation): CohortRef | undefined => {
  const right = node.right
  if (right.node !== "Constant") return undefined
  return typeof right.value === "string" || (typeof right.value === "number" && Number.isSafeInteger(right.value))
    ? right.value
    : undefined
}

/** Every cohort the statement names with `IN COHORT`, each once. */
export const cohortRefs = (tree: unknown): Array<CohortRef> => {
  const found = new Set<CohortRef>()
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk)
    if (typeof v !== "object" || v === null) return
    if (isCohortTest(v)) {
      const ref = cohortRefOf(v)
      if (ref !== undefined) found.add(ref)
    }
    Object.values(v).forEach(walk)
  }
  walk(tree)
  return [...found]
}

/** `left IN COHORT …` as the list of the cohort's members' uuids; an empty cohort holds for no one. */
export const cohortCondition = (node: A.CompareOperation, members: ReadonlyArray<string>): A.Expr => {
  const negated = node.op === "not in cohort"
  if (members.length === 0) return Q.constant(negated)
  return {
    node: "CompareOperation",
    op: negated ? "not in" : "in",
    left: node.left,
    right: { node: "Tuple", exprs: members.map((uuid) => Q.call("toUUID", [Q.constant(uuid)])) }
  }
}

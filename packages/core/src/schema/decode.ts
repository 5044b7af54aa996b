import { Effect, Option, ParseResult, Schema, SchemaAST } from "effect"
import { ErrorCode } from "./fields.js"
import { ValidationError } from "./ValidationError.js"

interface Failure {
  readonly path: ReadonlyArray<PropertyKey>
  readonly code: string
  readonly detail: string
}

// What a value should have been, in words: the wire-side type, without refinements.
const expected = (ast: SchemaAST.AST): string => {
  switch (ast._tag) {
    case "Refinement":
    case "Transformation":
      return expected(ast.from)
    case "StringKeyword":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "a list"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Union":
      return ast.types
        .filter((t) => !SchemaAST.isUndefinedKeyword(t))
        .map(expected)
        .join(" or ")
    default:
      return String(ast)
  }
}

const shown = (actual: unknown): string => {
  try {
    return JSON.stringify(actual) ?? String(actual)
  } catch {
    return String(actual)
  }
}

/** The literals a field's type allows, or undefined when it is not literals only. */
const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.LiteralValue> | undefined => {
  if (SchemaAST.isLiteral(ast)) return [ast.literal]
  if (!SchemaAST.isUnion(ast)) return undefined
  const all = ast.types.map(literalsOf)
  return all.every((l) => l !== undefined) ? all.flat() : undefined
}

/**
 * A union member the value is not one of, told by a literal field (a node's `kind`) whose value is
 * none of the member's: its failure says nothing about the value.
 */
const otherShape = (issue: ParseResult.ParseIssue): boolean => {
  if (issue._tag !== "Composite") return false
  // Members the union grouped by their literals: the value's literal is none of the group's.
  const first = (Array.isArray(issue.issues) ? issue.issues : [issue.issues])[0] as ParseResult.ParseIssue | undefined
  if (first?._tag === "Pointer" && first.issue._tag === "Type" && literalsOf(first.issue.ast) !== undefined) return true
  if (!SchemaAST.isTypeLiteral(issue.ast)) return false
  const actual = issue.actual
  if (typeof actual !== "object" || actual === null) return false
  return issue.ast.propertySignatures.some((p) => {
    const literals = literalsOf(p.type)
    return literals !== undefined && !literals.includes((actual as Record<PropertyKey, unknown>)[p.name] as never)
  })
}

// Walks to the first failure in a parse issue tree: errors report only the first problem, with
// the path to the offending field.
const firstFailure = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Failure => {
  switch (issue._tag) {
    case "Pointer":
      return firstFailure(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite": {
      const issues = (
        Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      ) as ReadonlyArray<ParseResult.ParseIssue>
      if (!SchemaAST.isUnion(issue.ast)) return firstFailure(issues[0]!, path)
      // When the value has the type of exactly one member (an optional or nullable field's real
      // type, or one shape of several) but fails inside it, that failure is the one to report.
      const candidates = issues.filter((i) => i._tag !== "Type")
      const deeper = candidates.filter((i) => !otherShape(i))
      if (deeper.length === 1) return firstFailure(deeper[0]!, path)
      // A value of no member's shape whose members the union grouped by one literal field: that
      // field (a question's `type`) is what is wrong.
      if (deeper.length === 0 && candidates.length === 1) return firstFailure(candidates[0]!, path)
      return typeFailure(issue.ast, issue.actual, path)
    }
    case "Refinement": {
      if (issue.kind === "From") return firstFailure(issue.issue, path)
      const code = SchemaAST.getAnnotation<string>(issue.ast, ErrorCode)
      return {
        path,
        code: Option.getOrElse(code, () => "invalid_input"),
        detail: Option.getOrElse(
          SchemaAST.getMessageAnnotation(issue.ast).pipe(
            Option.map((m) => String(typeof m === "function" ? m(issue) : m))
          ),
          () => ParseResult.TreeFormatter.formatIssueSync(issue)
        )
      }
    }
    case "Transformation":
      // The value had the wire type but would not convert (e.g. "x" as a number).
      return issue.kind === "Transformation"
        ? typeFailure(issue.ast.to, issue.actual, path)
        : firstFailure(issue.issue, path)
    case "Missing":
      return { path, code: "required", detail: "This field is required." }
    case "Unexpected":
      return { path, code: "invalid_input", detail: "This field is not allowed." }
    case "Type":
      return typeFailure(issue.ast, issue.actual, path)
    case "Forbidden":
      return { path, code: "invalid_input", detail: issue.message ?? "This value is not allowed." }
  }
}

const typeFailure = (ast: SchemaAST.AST, actual: unknown, path: ReadonlyArray<PropertyKey>): Failure =>
  actual === null
    ? { path, code: "null", detail: "This field may not be null." }
    : path.length === 0 && (typeof actual !== "object" || Array.isArray(actual))
      ? { path, code: "invalid_input", detail: `Invalid data. Expected a dictionary, but got ${kind(actual)}.` }
      : { path, code: "invalid_input", detail: `Expected ${expected(ast)}, got ${shown(actual)}.` }

const kind = (actual: unknown): string =>
  Array.isArray(actual) ? "list" : actual === null ? "null" : typeof actual === "string" ? "str" : typeof actual

const attrOf = (path: ReadonlyArray<PropertyKey>) => (path.length === 0 ? null : path.map(String).join("__"))

/** Maps a Schema parse error to the first field error, `attr` joining nested paths with `__`. */
export const toValidationError = (
  error: ParseResult.ParseError,
  prefix: ReadonlyArray<string> = []
): ValidationError => {
  const failure = firstFailure(error.issue, prefix)
  return new ValidationError({
    code: failure.code,
    detail: failure.detail,
    attr: attrOf(failure.path)
  })
}

// PostgreSQL text and jsonb cannot hold NUL, nor can UTF-8 encode half a surrogate pair; JSON and
// percent-encoding carry both. Refused as DRF refuses them, with its codes.
const unstorable = (text: string): Omit<Failure, "path"> | undefined => {
  if (text.includes("\u0000"))
    return { code: "null_characters_not_allowed", detail: "Null characters are not allowed." }
  if (text.isWellFormed()) return undefined
  const lone = [...text].find((c) => c.length === 1 && c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff)!
  return {
    code: "surrogate_characters_not_allowed",
    detail: `Surrogate characters are not allowed: U+${lone.charCodeAt(0).toString(16).toUpperCase()}.`
  }
}

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

interface Step {
  readonly key: PropertyKey
  readonly parent: Step | undefined
}

const pathOf = (step: Step | undefined): Array<PropertyKey> => {
  const path: Array<PropertyKey> = []
  for (let at = step; at !== undefined; at = at.parent) path.unshift(at.key)
  return path
}

/**
 * The first text in a decoded input, key or value, however deep, that no store can hold. Walked
 * with a stack of its own (JSON nests deeper than the call stack reaches), each value knowing only
 * its parent until a path is needed.
 */
export const unstorableText = (value: unknown): Failure | undefined => {
  const stack: Array<readonly [unknown, Step | undefined]> = [[value, undefined]]
  while (stack.length > 0) {
    const [item, at] = stack.pop()!
    if (typeof item === "string") {
      const problem = unstorable(item)
      if (problem !== undefined) return { path: pathOf(at), ...problem }
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], { key: i, parent: at }])
    } else if (typeof item === "object" && item !== null && isPlain(item)) {
      const entries = Object.entries(item)
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!
        const problem = unstorable(key)
        if (problem !== undefined) return { path: pathOf({ key, parent: at }), ...problem }
        stack.push([child, { key, parent: at }])
      }
    }
  }
  return undefined
}

/** Decodes untrusted input, failing with the first field error; text no store can hold is such an error. */
export const decode = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "first" })(input).pipe(
    Effect.mapError((error) => toValidationError(error)),
    Effect.flatMap((value) => {
      const failure = unstorableText(value)
      return failure === undefined
        ? Effect.succeed(value)
        : Effect.fail(new ValidationError({ code: failure.code, detail: failure.detail, attr: attrOf(failure.path) }))
    })
  )

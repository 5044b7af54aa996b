import { Effect, Option, ParseResult, Schema, SchemaAST } from "effect"
import { ValidationError } from "./errors.js"

/** Annotation carrying the error code a failed check reports (`blank`, `max_length`, `invalid_choice`, …). */
export const ErrorCode: unique symbol = Symbol.for("@zed/core/ErrorCode")

/** A check whose failure reports `code` and `detail`, as a DRF field validator would. */
export const check = <A>(predicate: (a: A) => boolean, code: string, detail: string | ((a: A) => string)) =>
  Schema.filter<Schema.Schema<A, any, never>>((a) => predicate(a), {
    message: (issue) => (typeof detail === "string" ? detail : detail(issue.actual as A)),
    [ErrorCode]: code
  })

/** A text field: not blank and at most `maxLength` characters. */
export const Text = (maxLength: number) =>
  Schema.String.pipe(
    check((s: string) => s.trim().length > 0, "blank", "This field may not be blank."),
    check((s: string) => s.length <= maxLength, "max_length",
      `Ensure this field has no more than ${maxLength} characters.`)
  )

/** An integer given as text, as query and path parameters are. */
export const IntFromString = (min: number) =>
  Schema.NumberFromString.pipe(
    check((n: number) => Number.isInteger(n), "invalid_input", "A valid integer is required."),
    check((n: number) => n >= min, "min_value", `Ensure this value is greater than or equal to ${min}.`)
  ).annotations({ jsonSchema: { type: "integer", minimum: min } })

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
      return ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t)).map(expected).join(" or ")
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

// Walks to the first failure in a parse issue tree: errors report only the first problem, with
// the path to the offending field.
const firstFailure = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Failure => {
  switch (issue._tag) {
    case "Pointer":
      return firstFailure(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])])
    case "Composite": {
      const issues = (Array.isArray(issue.issues) ? issue.issues : [issue.issues]) as ReadonlyArray<ParseResult.ParseIssue>
      if (!SchemaAST.isUnion(issue.ast)) return firstFailure(issues[0]!, path)
      // When the value has the type of exactly one member (an optional or nullable field's real
      // type, or one shape of several) but fails inside it, that failure is the one to report.
      const deeper = issues.filter((i) => i._tag !== "Type")
      return deeper.length === 1 ? firstFailure(deeper[0]!, path) : typeFailure(issue.ast, issue.actual, path)
    }
    case "Refinement": {
      if (issue.kind === "From") return firstFailure(issue.issue, path)
      const code = SchemaAST.getAnnotation<string>(issue.ast, ErrorCode)
      return {
        path,
        code: Option.getOrElse(code, () => "invalid_input"),
        detail: Option.getOrElse(SchemaAST.getMessageAnnotation(issue.ast).pipe(
          Option.map((m) => String(typeof m === "function" ? m(issue) : m))
        ), () => ParseResult.TreeFormatter.formatIssueSync(issue))
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

/** Maps a Schema parse error to the first field error, `attr` joining nested paths with `__`. */
export const toValidationError = (error: ParseResult.ParseError, prefix: ReadonlyArray<string> = []): ValidationError => {
  const failure = firstFailure(error.issue, prefix)
  return new ValidationError({
    code: failure.code,
    detail: failure.detail,
    attr: failure.path.length === 0 ? null : failure.path.map(String).join("__")
  })
}

/** Decodes untrusted input, failing with the first field error. */
export const decode = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "first" })(input).pipe(
    Effect.mapError((error) => toValidationError(error))
  )

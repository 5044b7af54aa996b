import createParser, { type HogQLParser } from "@posthog/hogql-parser"
import { Effect, Either, ParseResult, Schema } from "effect"
import { nodeKinds, type SelectLike, SelectSchema } from "./ast.js"
import { ZedQLSyntaxError } from "./errors.js"

// The HogQL grammar's own parser (WebAssembly): ZedQL is that language. It loads once per process;
// after that, parsing is synchronous.

export interface ZedQLParser {
  readonly parseSelect: (text: string) => Either.Either<SelectLike, ZedQLSyntaxError>
}

interface ParserError {
  readonly error: true
  readonly type: string
  readonly message: string
  readonly start?: { readonly offset: number }
  readonly end?: { readonly offset: number }
}

const isParserError = (value: unknown): value is ParserError =>
  typeof value === "object" && value !== null && (value as { error?: unknown }).error === true

const decodeSelect = Schema.decodeUnknownEither(SelectSchema)

const KNOWN_NODES = new Set([
  "Constant", "Field", "Alias", "Placeholder", "Call", "ArithmeticOperation", "CompareOperation", "And", "Or", "Not",
  "BetweenExpr", "ArrayAccess", "Array", "Tuple", "TupleAccess", "Lambda", "TypeCast", "OrderExpr", "WindowFunction",
  "WindowExpr", "WindowFrameExpr", "SelectQuery", "SelectSetQuery", "SelectSetNode", "JoinExpr", "JoinConstraint", "CTE",
  "SampleExpr", "RatioExpr"
])

/** Parses are kept for texts up to this long, this many of them (the least recently used go first). */
const CACHED_TEXT = 20_000
export const CACHED_PARSES = 500

/**
 * The grammar's parser takes milliseconds to tens of them for a query, and the same texts come
 * again: dashboards refresh their queries, and a virtual table's definition (sessions) is parsed
 * for every query that reads it. ASTs are never changed once made, so a parse is kept and reused.
 */
const cached = (parse: ZedQLParser["parseSelect"]): ZedQLParser["parseSelect"] => {
  const parses = new Map<string, ReturnType<ZedQLParser["parseSelect"]>>()
  return (text) => {
    const known = parses.get(text)
    if (known !== undefined) {
      parses.delete(text)
      parses.set(text, known)
      return known
    }
    const parsed = parse(text)
    if (text.length <= CACHED_TEXT) {
      parses.set(text, parsed)
      if (parses.size > CACHED_PARSES) parses.delete(parses.keys().next().value!)
    }
    return parsed
  }
}

const wrap = (parser: HogQLParser): ZedQLParser => ({
  parseSelect: cached((text) => {
    const json: unknown = JSON.parse(parser.parseSelect(text, false))
    if (isParserError(json)) {
      const span = json.start && json.end ? { start: json.start.offset, end: Math.max(json.end.offset, json.start.offset) } : null
      // The grammar parses SETTINGS but refuses it: users cannot set the database's settings.
      const message = json.message === "Unsupported: SelectStmt.settingsClause()" ? "SETTINGS is not allowed in ZedQL" : json.message
      return Either.left(new ZedQLSyntaxError({ message, span }))
    }
    return Either.mapLeft(decodeSelect(json), (error) => {
      const unknown = [...nodeKinds(json)].filter((k) => !KNOWN_NODES.has(k))
      return new ZedQLSyntaxError({
        message: unknown.length > 0
          ? `Unsupported syntax: ${unknown.join(", ")}`
          : `Unsupported query shape: ${ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]}`,
        span: null
      })
    })
  })
})

let loadingGrammar: Promise<HogQLParser> | undefined
const loadGrammar = () => (loadingGrammar ??= createParser())

/** The grammar's raw parser, loaded on first use; Hog programs are parsed by the same instance. */
export const hogqlParser: Effect.Effect<HogQLParser> = Effect.promise(loadGrammar)

let loading: Promise<ZedQLParser> | undefined

/** The parser, loaded on first use. */
export const zedqlParser: Effect.Effect<ZedQLParser> = Effect.promise(() => (loading ??= loadGrammar().then(wrap)))

import { Effect, Either, ParseResult, Schema } from "effect"
import { nodeKinds, type SelectLike, SelectSchema } from "./ast.js"
import { approximateBytes, makeBoundedMap } from "../cache/bounded.js"
import { Grammar, type GrammarRefused } from "../grammar/pool.js"
import { ZedQLSyntaxError } from "./errors.js"

// The HogQL grammar's own parser (WebAssembly): ZedQL is that language. Users' texts are parsed in
// the grammar pool (off this thread, within limits); Zed's own templates when Zed is built (build.ts).

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
  "Constant",
  "Field",
  "Alias",
  "Placeholder",
  "Call",
  "ArithmeticOperation",
  "CompareOperation",
  "And",
  "Or",
  "Not",
  "BetweenExpr",
  "ArrayAccess",
  "Array",
  "Tuple",
  "TupleAccess",
  "Lambda",
  "TypeCast",
  "OrderExpr",
  "WindowFunction",
  "WindowExpr",
  "WindowFrameExpr",
  "SelectQuery",
  "SelectSetQuery",
  "SelectSetNode",
  "JoinExpr",
  "JoinConstraint",
  "CTE",
  "SampleExpr",
  "RatioExpr"
])

/**
 * The grammar's parser takes milliseconds to tens of them for a query, and the same texts come
 * again: dashboards refresh their queries. ASTs are never changed once made, so a parse is kept and reused:
 * for texts up to CACHED_TEXT characters, at most CACHED_PARSES of them and CACHED_BYTES of their
 * trees (approximately); past either, the least recently used go first.
 */
const CACHED_TEXT = 20_000
export const CACHED_PARSES = 500
export const CACHED_BYTES = 16 * 1024 * 1024

type Parsed = Either.Either<SelectLike, ZedQLSyntaxError>

/** A parse cache within these bounds (the module's own has the ones above). */
export const makeParseCache = (bounds = { texts: CACHED_TEXT, entries: CACHED_PARSES, bytes: CACHED_BYTES }) => {
  const parses = makeBoundedMap<string, Parsed>({
    maxEntries: bounds.entries,
    maxWeight: bounds.bytes,
    weigh: (parsed, text) => text.length + (Either.isRight(parsed) ? approximateBytes(parsed.right) : 0)
  })
  return {
    kept: (text: string) => parses.get(text),
    keep: (text: string, parsed: Parsed) => {
      if (text.length <= bounds.texts) parses.set(text, parsed)
      return parsed
    },
    size: parses.size,
    bytes: parses.weight
  }
}

const { keep, kept } = makeParseCache()

/** The query the parser's JSON describes, or the syntax error it reports. */
const selectOf = (text: string): Either.Either<SelectLike, ZedQLSyntaxError> => {
  const json: unknown = JSON.parse(text)
  if (isParserError(json)) {
    const span =
      json.start && json.end ? { start: json.start.offset, end: Math.max(json.end.offset, json.start.offset) } : null
    // The grammar parses SETTINGS but refuses it: users cannot set the database's settings.
    const message =
      json.message === "Unsupported: SelectStmt.settingsClause()" ? "SETTINGS is not allowed in ZedQL" : json.message
    return Either.left(new ZedQLSyntaxError({ message, span }))
  }
  return Either.mapLeft(decodeSelect(json), (error) => {
    const unknown = [...nodeKinds(json)].filter((k) => !KNOWN_NODES.has(k))
    return new ZedQLSyntaxError({
      message:
        unknown.length > 0
          ? `Unsupported syntax: ${unknown.join(", ")}`
          : `Unsupported query shape: ${ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]}`,
      span: null
    })
  })
}

/** A user's ZedQL, parsed in the grammar pool within its limits. */
export const parseSelect = (text: string): Effect.Effect<SelectLike, ZedQLSyntaxError | GrammarRefused> =>
  Effect.suspend(() => {
    const known = kept(text)
    if (known !== undefined) return known
    return Effect.flatMap(Grammar, (grammar) => grammar.parse("parseSelect", text)).pipe(
      Effect.flatMap((json) => keep(text, selectOf(json)))
    )
  })

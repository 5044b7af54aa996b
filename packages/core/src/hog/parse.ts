import { Effect } from "effect"
import { Grammar, type GrammarRule } from "../grammar/pool.js"
import { type HogNode, isParserError } from "./ast.js"
import { compileErrorAt, type HogCompileError } from "./errors.js"

/** A template's text goes to the grammar after this opening (it reads to the end, with no closing quote). */
const TEMPLATE_OPENING = "F'"

/** Parsed in the grammar pool; a text over its limits is a compile error at its start. */
const parseWith = (
  source: string,
  rule: GrammarRule,
  text = source,
  shift = 0
): Effect.Effect<HogNode, HogCompileError> =>
  Effect.flatMap(Grammar, (grammar) => grammar.parse(rule, text)).pipe(
    Effect.catchTag("GrammarRefused", (refused) => Effect.fail(compileErrorAt(source, refused.message, null, null))),
    Effect.flatMap((output) => {
      const json: unknown = JSON.parse(output)
      if (!isParserError(json)) return Effect.succeed(json as HogNode)
      const start = json.start ? json.start.offset - shift : null
      const end = json.end ? json.end.offset - shift : null
      return Effect.fail(compileErrorAt(source, json.message, start, end))
    })
  )

export const parseProgram = (source: string) => parseWith(source, "parseProgram")

export const parseExpression = (source: string) => parseWith(source, "parseExpr")

/** Positions in the tree stay relative to the parsed text, which is `TEMPLATE_OPENING` longer than the template. */
export const parseTemplate = (text: string) =>
  parseWith(text, "parseFullTemplateString", TEMPLATE_OPENING + text, TEMPLATE_OPENING.length)

export const TEMPLATE_SHIFT = TEMPLATE_OPENING.length

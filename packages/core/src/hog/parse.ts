import type { HogQLParser } from "@posthog/hogql-parser"
import { Effect } from "effect"
import { hogqlParser } from "../zedql/parse.js"
import { type HogNode, isParserError } from "./ast.js"
import { compileErrorAt, type HogCompileError } from "./errors.js"

/** A template's text goes to the grammar after this opening (it reads to the end, with no closing quote). */
const TEMPLATE_OPENING = "F'"

const parseWith = (source: string, run: (parser: HogQLParser) => string, shift = 0): Effect.Effect<HogNode, HogCompileError> =>
  Effect.flatMap(hogqlParser, (parser) => {
    const json: unknown = JSON.parse(run(parser))
    if (!isParserError(json)) return Effect.succeed(json as HogNode)
    const start = json.start ? json.start.offset - shift : null
    const end = json.end ? json.end.offset - shift : null
    return Effect.fail(compileErrorAt(source, json.message, start, end))
  })

export const parseProgram = (source: string) => parseWith(source, (parser) => parser.parseProgram(source, false))

export const parseExpression = (source: string) => parseWith(source, (parser) => parser.parseExpr(source, false))

/** Positions in the tree stay relative to the parsed text, which is `TEMPLATE_OPENING` longer than the template. */
export const parseTemplate = (text: string) =>
  parseWith(text, (parser) => parser.parseFullTemplateString(TEMPLATE_OPENING + text), TEMPLATE_OPENING.length)

export const TEMPLATE_SHIFT = TEMPLATE_OPENING.length

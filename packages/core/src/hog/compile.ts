import { Effect } from "effect"
import type * as Ast from "./ast.js"
import { Compiler, Unsupported } from "./compiler.js"
import { compileErrorAt, type HogCompileError } from "./errors.js"
import { BYTECODE_HEADER } from "./opcodes.js"
import { parseExpression, parseProgram, parseTemplate, TEMPLATE_SHIFT } from "./parse.js"

/** HogVM bytecode: the header, then instructions and their operands. JSON-serialisable. */
export type Bytecode = ReadonlyArray<unknown>

/** Runs the compiler on a parsed tree; `shift` maps the tree's offsets back to `source`. */
const generate = (source: string, shift: number, emit: (compiler: Compiler) => Array<unknown>) =>
  Effect.try({
    try: (): Bytecode => [...BYTECODE_HEADER, ...emit(new Compiler())],
    catch: (error): HogCompileError => {
      if (!(error instanceof Unsupported)) throw error
      const node = error.node
      const start = node?.start ? node.start.offset - shift : null
      const end = node?.end ? node.end.offset - shift : null
      return compileErrorAt(source, error.message, start, end)
    }
  })

/** A Hog program (statements; its result is what it `return`s, else null). */
export const compileProgram = (source: string): Effect.Effect<Bytecode, HogCompileError> =>
  Effect.flatMap(parseProgram(source), (tree) => generate(source, 0, (c) => c.program(tree)))

/** One Hog expression; its value is the result. */
export const compileExpression = (source: string): Effect.Effect<Bytecode, HogCompileError> =>
  Effect.flatMap(parseExpression(source), (tree) => generate(source, 0, (c) => c.expression(tree)))

/** A template parses to `concat(...)` of its pieces; one lone placeholder is just its expression. */
const templateValue = (tree: Ast.HogNode): Ast.HogNode => {
  const call = tree as Ast.Call
  return tree.node === "Call" && call.name === "concat" && call.args.length === 1 ? call.args[0]! : tree
}

/** A template with single braces: 'Hi {event.properties.name}!' renders to a string; a template that is exactly one placeholder '{event.properties}' yields the value itself (not stringified), as PostHog's templating does. */
export const compileTemplate = (text: string): Effect.Effect<Bytecode, HogCompileError> =>
  Effect.flatMap(parseTemplate(text), (tree) =>
    generate(text, TEMPLATE_SHIFT, (c) => c.expression(templateValue(tree)))
  )

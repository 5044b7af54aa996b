import { Data } from "effect"

/**
 * The text is not a Hog program Zed can compile: a syntax error, or syntax the compiler does not
 * support. Offsets are into the source (end exclusive); line is 1-based, column 0-based.
 */
export class HogCompileError extends Data.TaggedError("HogCompileError")<{
  readonly message: string
  readonly start: number | null
  readonly end: number | null
  readonly line: number | null
  readonly column: number | null
}> {}

/** An error at a span of `source`, with the line and column of its start. */
export const compileErrorAt = (source: string, message: string, start: number | null, end: number | null) => {
  if (start === null) return new HogCompileError({ message, start: null, end: null, line: null, column: null })
  const at = Math.min(Math.max(start, 0), source.length)
  const before = source.slice(0, at)
  const lineStart = before.lastIndexOf("\n") + 1
  return new HogCompileError({
    message,
    start: at,
    end: end === null ? null : Math.min(Math.max(end, at), source.length),
    line: before.split("\n").length,
    column: at - lineStart
  })
}

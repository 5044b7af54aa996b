// @ts-check
// A parsing thread of the grammar pool (see pool.ts). Plain JavaScript, so that Node starts it as it
// is from the sources (tests) as well as from dist/.
import { readlinkSync } from "node:fs"
import { setPriority } from "node:os"
import { parentPort } from "node:worker_threads"
import createParser from "@posthog/hogql-parser"

const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort)

// Parsing yields the processor to requests: on Linux this thread takes the lowest priority
// (niceness is per thread there, and /proc/thread-self names it). Elsewhere it keeps the process's.
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), 19)
} catch {}

const parser = await createParser()

/**
 * The nesting depth of a JSON text and the number of AST nodes in it (`"node":"` keys; inside a
 * string the quotes would be escaped), in one pass without building anything.
 * @param {string} json
 */
const measure = (json) => {
  let depth = 0
  let deepest = 0
  let nodes = 0
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) {
      if (json.startsWith('"node":"', i)) nodes++
      inString = true
    } else if (c === 123 || c === 91) {
      if (++depth > deepest) deepest = depth
    } else if (c === 125 || c === 93) depth--
  }
  return { depth: deepest, nodes }
}

port.on(
  "message",
  (
    /** @type {{ id: number, rule: "parseSelect" | "parseExpr" | "parseProgram" | "parseFullTemplateString", text: string }} */ {
      id,
      rule,
      text
    }
  ) => {
    let json
    try {
      json = parser[rule](text, false)
    } catch (error) {
      // The parser's memory may be corrupt (a WebAssembly trap): this thread answers and ends, and
      // the pool starts another.
      port.postMessage({ id, crashed: error instanceof Error ? error.message : String(error) })
      process.exit(1)
    }
    port.postMessage({ id, json, ...measure(json) })
  }
)

port.postMessage({ ready: true })

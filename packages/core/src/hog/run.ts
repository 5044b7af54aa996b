import * as hogvmModule from "@posthog/hogvm"

// The VM ships CommonJS for Node (its exports arrive as `default`) and an ES module for bundlers
// (named exports only, as Next.js reads it): take whichever this import got.
const hogvm: typeof hogvmModule =
  "exec" in hogvmModule ? hogvmModule : (hogvmModule as unknown as { default: typeof hogvmModule }).default
import type { Bytecode } from "./compile.js"

export interface HogLimits {
  readonly timeoutMs: number
  readonly memoryBytes: number
}

export interface HogRun {
  readonly globals: Record<string, unknown>
  readonly limits: HogLimits
  readonly print?: (line: string) => void
}

export type HogOutcome =
  | { readonly _tag: "Finished"; readonly result: unknown }
  | { readonly _tag: "Failed"; readonly message: string }

export interface HogFetchInit {
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: unknown
}

export type HogFetch = (url: string, init: HogFetchInit) => Promise<{ status: number; body: unknown }>

const INLINE_CASE_INSENSITIVE = "(?i)"

/**
 * The VM leaves regular expressions to its host. Its patterns use RE2 syntax, whose case-insensitive
 * prefix JavaScript spells as a flag.
 */
const regexMatch = (regex: string, value: string) =>
  regex.startsWith(INLINE_CASE_INSENSITIVE)
    ? new RegExp(regex.slice(INLINE_CASE_INSENSITIVE.length), "i").test(value)
    : new RegExp(regex).test(value)

/** `print` writes one line: its arguments as Hog shows them (strings bare), separated by spaces. */
const printer =
  (print: HogRun["print"]) =>
  (...args: Array<unknown>) => {
    print?.(args.map((arg) => hogvm.printHogStringOutput(arg)).join(" "))
    return null
  }

const options = (run: HogRun, asyncFunctions: Record<string, (...args: Array<unknown>) => Promise<unknown>>) => ({
  globals: run.globals,
  functions: { print: printer(run.print) },
  asyncFunctions,
  timeout: run.limits.timeoutMs,
  memoryLimit: run.limits.memoryBytes,
  external: { regex: { match: regexMatch } }
})

/** What went wrong, readably: an uncaught Hog `throw` reads `Type: message`. */
const failure = (error: unknown): HogOutcome => {
  if (error instanceof hogvm.UncaughtHogVMException)
    return { _tag: "Failed", message: `${error.type}: ${error.message}` }
  return { _tag: "Failed", message: error instanceof Error ? error.message : String(error) }
}

/** An own property, even one named `__proto__` (plain assignment would set the prototype instead). */
const own = (obj: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })

/** A Hog value as JavaScript: dicts (maps) become plain objects with every key kept; a cycle is cut. */
const toJs = (value: unknown, open: Set<unknown> = new Set()): unknown => {
  if (typeof value !== "object" || value === null || open.has(value)) return open.has(value) ? null : value
  if (!(value instanceof Map) && !Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype)
    return value
  const record = value as Record<string, unknown>
  if (record["__hogDateTime__"] || record["__hogDate__"] || record["__hogClosure__"] || record["__hogCallable__"])
    return value
  open.add(value)
  try {
    if (Array.isArray(value)) return value.map((v) => toJs(v, open))
    const obj: Record<string, unknown> = {}
    for (const [key, v] of value instanceof Map ? value : Object.entries(record)) own(obj, String(key), toJs(v, open))
    return obj
  } finally {
    open.delete(value)
  }
}

const finished = (result: unknown): HogOutcome => ({ _tag: "Finished", result: toJs(result) })

/** Lets the VM recognise `fetch` as asynchronous in a synchronous run, so the call stops it with a clear message. */
const refuseAsync = { fetch: () => Promise.reject(new Error("unreachable: synchronous runs stop at async calls")) }

/** Synchronous run (no async functions: calling one fails with a clear message). */
export const runHog = (bytecode: Bytecode, run: HogRun): HogOutcome => {
  try {
    const response = hogvm.exec([...bytecode], options(run, refuseAsync))
    if (response.finished) return finished(response.result)
    if (response.error !== undefined) return failure(response.error)
    return {
      _tag: "Failed",
      message: `${response.asyncFunctionName ?? "An async function"}() cannot be called in a synchronous run`
    }
  } catch (error) {
    return failure(error)
  }
}

/** `fetch(url, {method, headers, body})` as Hog programs call it: GET unless told, no headers unless given. */
const hogFetch = (fetch: HogFetch) => (url: unknown, init: unknown) => {
  const given = (typeof init === "object" && init !== null ? init : {}) as Record<string, unknown>
  const headers =
    typeof given.headers === "object" && given.headers !== null ? (given.headers as Record<string, unknown>) : {}
  return fetch(String(url), {
    method: typeof given.method === "string" ? given.method.toUpperCase() : "GET",
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
    body: given.body ?? null
  })
}

/** Run that may call `fetch`; each call goes to the given function. */
export const runHogAsync = async (
  bytecode: Bytecode,
  run: HogRun & { readonly fetch: HogFetch }
): Promise<HogOutcome> => {
  try {
    const response = await hogvm.execAsync([...bytecode], options(run, { fetch: hogFetch(run.fetch) }))
    return finished(response.result)
  } catch (error) {
    return failure(error)
  }
}

import type { Project } from "../domain/models.js"
import { isObject } from "../domain/json.js"
import { runHog, runHogAsync } from "../hog/run.js"
import type { IncomingEvent } from "../ingest/normalize.js"
import type { StoredFunction } from "../services/ZedFunctionStore.js"
import { type FunctionFilters, passesFilters } from "./filters.js"
import { DESTINATION_LIMITS, eventGlobal, globalsOf, renderInputs, TRANSFORMATION_LIMITS } from "./invoke.js"
import { transformed } from "./transform.js"

// A function run once on a sample event, as PostHog's test invocations: nothing is stored, nothing
// is sent (a destination's `fetch` is answered 200 without a request), and what the function printed
// or would have logged comes back with its result.

export interface TestLog {
  readonly timestamp: string
  readonly level: "DEBUG" | "LOG" | "INFO" | "WARN" | "ERROR"
  readonly message: string
}

export interface TestRun {
  /** `skipped`: the function's filters leave the event out. */
  readonly status: "success" | "error" | "skipped"
  /** A transformation's event as it would be stored (null: dropped); a destination's return value. */
  readonly result: unknown
  readonly logs: ReadonlyArray<TestLog>
}

export type TestedFunction = Pick<StoredFunction, "type" | "name" | "bytecode" | "inputs" | "secrets" | "filters">

export const testRun = async (project: Project, fn: TestedFunction, event: IncomingEvent): Promise<TestRun> => {
  const logs: Array<TestLog> = []
  const log = (level: TestLog["level"], message: string) =>
    logs.push({ timestamp: new Date().toISOString(), level, message })
  const person = isObject(event.properties["$set"]) ? event.properties["$set"] : {}
  if (
    !passesFilters(
      fn.filters as FunctionFilters | null,
      { event: event.event, properties: event.properties, person },
      project
    )
  ) {
    log("INFO", "The function's filters leave this event out: it would not run.")
    return { status: "skipped", result: null, logs }
  }
  const transformation = fn.type === "transformation"
  const globals = globalsOf(
    project,
    fn as StoredFunction,
    event,
    transformation ? null : { id: "", properties: person, name: event.distinct_id }
  )
  const limits = transformation ? TRANSFORMATION_LIMITS : DESTINATION_LIMITS
  const rendered = renderInputs(fn as StoredFunction, globals, limits)
  if ("error" in rendered) {
    log("ERROR", rendered.error)
    return { status: "error", result: null, logs }
  }
  const run = { globals: { ...globals, inputs: rendered.inputs }, limits, print: (line: string) => log("LOG", line) }
  if (transformation) {
    const outcome = runHog(fn.bytecode, run)
    const next = outcome._tag === "Failed" ? outcome.message : transformed(event, outcome.result)
    if (typeof next === "string") {
      log("ERROR", `Error transforming the event: ${next}`)
      return { status: "error", result: null, logs }
    }
    if (next === null) log("INFO", "The event would be dropped.")
    return { status: "success", result: next === null ? null : eventGlobal(next), logs }
  }
  const outcome = await runHogAsync(fn.bytecode, {
    ...run,
    fetch: async (url, init) => {
      log("INFO", `fetch(${url}, ${JSON.stringify(init)}) not sent in a test run: answered 200 {}`)
      return { status: 200, body: {} }
    }
  })
  if (outcome._tag === "Failed") {
    log("ERROR", `Error sending the event: ${outcome.message}`)
    return { status: "error", result: null, logs }
  }
  return { status: "success", result: outcome.result ?? null, logs }
}

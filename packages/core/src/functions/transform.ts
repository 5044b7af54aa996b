import type { Project } from "../domain/models.js"
import { isObject } from "../domain/json.js"
import type { Bytecode } from "../hog/compile.js"
import { runHog } from "../hog/run.js"
import { type IncomingEvent, MAX_NAME_LENGTH } from "../ingest/normalize.js"
import { cleanJson, TooDeep, truncate } from "../ingest/sanitize.js"
import { pluginById, type PluginDeps } from "../plugins/catalog.js"
import { passesFilters } from "./filters.js"
import type { FunctionHealth } from "./health.js"
import { globalsOf, renderInputs, TRANSFORMATION_LIMITS } from "./invoke.js"
import type { LogLine } from "./logs.js"
import type { FunctionMetrics } from "./metrics.js"
import type { Masker } from "./masking.js"
import type { ActiveFunction, ProjectPipeline } from "./registry.js"

// Before storage: each event goes through the project's enabled plugins, then its transformations
// in execution order, each one's output feeding the next. A transformation returns the event
// (changed or not) or null to drop it. One that fails, runs too long or uses too much memory is
// skipped and logged: the event goes on as it was.

export interface TransformContext {
  readonly project: Project
  readonly pipeline: ProjectPipeline
  readonly deps: PluginDeps
  readonly masker: Masker
  readonly health: FunctionHealth["Type"]
  readonly metrics: FunctionMetrics["Type"]
  readonly log: (line: LogLine) => void
}

const functionLog = (
  context: TransformContext,
  fn: ActiveFunction,
  type: LogLine["type"],
  message: string,
  source: LogLine["source"] = "SYSTEM"
) =>
  context.log({ projectId: context.project.id, owner: { kind: "zed_function", id: fn.fn.id }, source, type, message })

/** Whether the function takes this event: its filters pass and masking lets it through. */
export const admits = (
  context: Pick<TransformContext, "project" | "masker">,
  fn: ActiveFunction,
  event: IncomingEvent,
  person: Readonly<Record<string, unknown>>,
  globals: Record<string, unknown>,
  now: number
): boolean => {
  if (!passesFilters(fn.filters, { event: event.event, properties: event.properties, person }, context.project))
    return false
  if (fn.masking === null) return true
  const hash = runHog(fn.masking.bytecode as Bytecode, { globals, limits: TRANSFORMATION_LIMITS })
  // A hash that cannot be computed masks nothing.
  return hash._tag === "Failed" || context.masker.admit(fn.fn.id, JSON.stringify(hash.result), fn.masking, now)
}

const runPlugins = (context: TransformContext, event: IncomingEvent): IncomingEvent => {
  let properties = event.properties
  for (const config of context.pipeline.plugins) {
    const plugin = pluginById(config.plugin_id)
    if (plugin === undefined) continue
    try {
      properties = plugin.apply(properties, config.config, context.deps)
    } catch (error) {
      context.log({
        projectId: context.project.id,
        owner: { kind: "plugin_config", id: String(config.id) },
        pluginId: plugin.id,
        source: "PLUGIN",
        type: "ERROR",
        message: `Error processing event ${event.uuid}: ${error instanceof Error ? error.message : String(error)}`
      })
    }
  }
  return properties === event.properties ? event : { ...event, properties }
}

/** The event a transformation answered, or why it is not one. */
export const transformed = (event: IncomingEvent, result: unknown): IncomingEvent | null | string => {
  if (result === null) return null
  if (!isObject(result) || !isObject(result["properties"]))
    return "a transformation must return the event (with its properties) or null"
  const name = result["event"]
  if (name !== undefined && (typeof name !== "string" || name === ""))
    return "the event name must be a non-empty string"
  try {
    const properties = cleanJson(result["properties"]) as Record<string, unknown>
    return { ...event, event: name === undefined ? event.event : truncate(name, MAX_NAME_LENGTH), properties }
  } catch (error) {
    if (error instanceof TooDeep) return "the returned properties are nested too deeply"
    throw error
  }
}

const runTransformation = (
  context: TransformContext,
  fn: ActiveFunction,
  event: IncomingEvent,
  now: number
): IncomingEvent | null => {
  const globals = globalsOf(context.project, fn.fn, event, null)
  const person = isObject(event.properties["$set"]) ? event.properties["$set"] : {}
  if (!admits(context, fn, event, person, globals, now)) return event
  const rendered = renderInputs(fn.fn, globals, TRANSFORMATION_LIMITS)
  const outcome =
    "error" in rendered
      ? { _tag: "Failed" as const, message: rendered.error }
      : runHog(fn.fn.bytecode, {
          globals: { ...globals, inputs: rendered.inputs },
          limits: TRANSFORMATION_LIMITS,
          print: (line) => functionLog(context, fn, "LOG", line, "CONSOLE")
        })
  const next = outcome._tag === "Failed" ? outcome.message : transformed(event, outcome.result)
  context.health.record(fn.fn.id, typeof next !== "string")
  context.metrics.record(context.project.id, fn.fn.id, typeof next !== "string")
  if (typeof next === "string") {
    functionLog(
      context,
      fn,
      "ERROR",
      `Error transforming event ${event.uuid}: ${next.replace(/\.+$/, "")}. The event was kept as it was.`
    )
    return event
  }
  if (next === null) functionLog(context, fn, "INFO", `Event ${event.uuid} (${event.event}) dropped`)
  return next
}

/**
 * Most time one transformation may take over one request's events: past it, the rest of the
 * request skips it, so that a function stuck at its time limit cannot hold capture for long.
 */
const REQUEST_BUDGET_MS = 1000

/** The events to store: plugins and transformations applied, dropped events left out. */
export const transformEvents = (
  context: TransformContext,
  events: ReadonlyArray<IncomingEvent>
): ReadonlyArray<IncomingEvent> => {
  const { plugins, transformations } = context.pipeline
  if (plugins.length === 0 && transformations.length === 0) return events
  const now = Date.now()
  const spent = new Map<string, number>()
  const kept: Array<IncomingEvent> = []
  for (const incoming of events) {
    let event: IncomingEvent | null = runPlugins(context, incoming)
    for (const fn of transformations) {
      const used = spent.get(fn.fn.id) ?? 0
      if (used > REQUEST_BUDGET_MS) continue
      const started = performance.now()
      event = runTransformation(context, fn, event, now)
      const total = used + performance.now() - started
      spent.set(fn.fn.id, total)
      if (total > REQUEST_BUDGET_MS) {
        functionLog(
          context,
          fn,
          "WARN",
          `Skipped for the rest of a request of ${events.length} events: it ran for more than ${REQUEST_BUDGET_MS} ms on them`
        )
      }
      if (event === null) break
    }
    if (event !== null) kept.push(event)
  }
  return kept
}

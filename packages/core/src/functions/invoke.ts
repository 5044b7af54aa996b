import type { Project } from "../domain/models.js"
import type { IncomingEvent } from "../ingest/normalize.js"
import type { Bytecode } from "../hog/compile.js"
import { type HogLimits, runHog } from "../hog/run.js"
import type { StoredFunction, StoredInput } from "../services/ZedFunctionStore.js"

// What a function sees when it runs (PostHog's invocation globals) and the rendering of its inputs.

/** Transformations run on the ingestion path: short and small. */
export const TRANSFORMATION_LIMITS: HogLimits = { timeoutMs: 100, memoryBytes: 16 * 1024 * 1024 }
/** Destinations run in the background; waiting on `fetch` does not count against the time. */
export const DESTINATION_LIMITS: HogLimits = { timeoutMs: 1000, memoryBytes: 64 * 1024 * 1024 }

export interface PersonGlobal {
  readonly id: string
  readonly properties: Readonly<Record<string, unknown>>
  readonly name: string
}

export const eventGlobal = (event: IncomingEvent) => ({
  uuid: event.uuid,
  event: event.event,
  distinct_id: event.distinct_id,
  properties: event.properties,
  elements_chain: typeof event.properties["$elements_chain"] === "string" ? event.properties["$elements_chain"] : "",
  timestamp: event.timestamp.toISOString()
})

export const globalsOf = (project: Project, fn: StoredFunction, event: IncomingEvent, person: PersonGlobal | null) => ({
  event: eventGlobal(event),
  ...(person === null ? {} : { person: { ...person, url: "" }, groups: {} }),
  project: { id: project.id, name: project.name, url: "" },
  source: { name: fn.name, url: "" }
})

/** Inputs rendered against the globals, or the reason one could not be. */
export const renderInputs = (
  fn: StoredFunction,
  globals: Record<string, unknown>,
  limits: HogLimits
): { readonly inputs: Record<string, unknown> } | { readonly error: string } => {
  const inputs: Record<string, unknown> = {}
  const all: ReadonlyArray<[string, StoredInput]> = [...Object.entries(fn.inputs), ...Object.entries(fn.secrets)]
  for (const [key, input] of [...all].sort(([, a], [, b]) => (a.order ?? 0) - (b.order ?? 0))) {
    if (input.bytecode === undefined) {
      inputs[key] = input.value
      continue
    }
    // Later inputs may use earlier ones, as in PostHog.
    const outcome = runHog(input.bytecode as Bytecode, { globals: { ...globals, inputs }, limits })
    if (outcome._tag === "Failed") return { error: `could not render input ${key}: ${outcome.message}` }
    inputs[key] = outcome.result
  }
  return { inputs }
}

import { Data, Effect, Option } from "effect"
import type { Zed } from "../createZed.js"
import { ProjectStore } from "../services/ProjectStore.js"
import { type DemoOptions, demoEvents } from "./generate.js"
import type { DemoEvent } from "./session.js"

export interface LoadDemoOptions extends DemoOptions {
  /** The project to load into. Default 1, the project the first start creates. */
  readonly project?: number | undefined
  /** Events per `/batch/` request. Default 1000. */
  readonly batchSize?: number | undefined
  /** Called after each stored batch with the events stored so far. */
  readonly onProgress?: ((loaded: number, total: number) => void) | undefined
}

export class DemoLoadError extends Data.TaggedError("DemoLoadError")<{ readonly message: string }> {}

const DEFAULT_BATCH = 1000

/**
 * Loads the demo data set into a project the way an import would send it: `/batch/` requests with
 * `historical_migration` (timestamps kept as generated), through capture's decoding, normalization,
 * person processing and group commit, like any SDK's events. Requests go one at a time, because
 * persons are shaped by events in the order they arrive: so the stored persons are those the
 * generated events describe, on every store. Events are idempotent on their uuids, so loading the
 * same options again stores nothing new. Answers how many events were sent.
 */
export const loadDemoData = async (zed: Pick<Zed, "handler" | "run">, options: LoadDemoOptions): Promise<number> => {
  const projectId = options.project ?? 1
  const size = options.batchSize ?? DEFAULT_BATCH
  if (!Number.isSafeInteger(size) || size < 1)
    throw new DemoLoadError({ message: "batchSize must be a whole number, 1 or more" })
  const project = await zed.run(Effect.flatMap(ProjectStore, (projects) => projects.get(projectId)))
  if (Option.isNone(project)) throw new DemoLoadError({ message: `there is no project ${projectId}` })
  const token = project.value.api_token

  let loaded = 0
  let batch: Array<DemoEvent> = []
  const send = async () => {
    const response = await zed.handler(
      new Request("http://zed.demo/batch/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ api_key: token, historical_migration: true, batch })
      })
    )
    if (response.status !== 200)
      throw new DemoLoadError({ message: `/batch/ answered ${response.status}: ${await response.text()}` })
    loaded += batch.length
    batch = []
    options.onProgress?.(loaded, options.events)
  }
  for (const event of demoEvents(options)) {
    batch.push(event)
    if (batch.length === size) await send()
  }
  if (batch.length > 0) await send()
  return loaded
}

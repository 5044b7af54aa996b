import { Context, Duration, Effect, Exit, FiberSet, Layer, Schedule } from "effect"
import type { Project } from "../domain/models.js"
import { InsightCompute } from "../insights/compute.js"
import { QueryRunner, type QueryRunError, userMessage } from "../queries/runner.js"
import { ExportStore, type StoredExport } from "../services/ExportStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { PropertyDefinitions } from "../services/PropertyDefinitions.js"
import { ZedConfig } from "../services/ZedConfig.js"
import { WRITERS } from "./formats.js"
import { type ExportSource, readRows, type RowPage } from "./sources.js"

// Runs exports in the background: rows are read a page at a time and written as they come, each
// page in chunks of at most CHUNK_BYTES, so a run holds one page whatever the export's size. The export records how the
// run ended: its content complete (`has_content`) or the reason it failed (`exception`).

export class ExportRunner extends Context.Tag("@zed/core/ExportRunner")<
  ExportRunner,
  {
    /** Starts writing the export's content from its source; answers at once. */
    readonly start: (project: Project, asset: StoredExport, source: ExportSource) => Effect.Effect<void>
  }
>() {}

const encoder = new TextEncoder()

/**
 * The most bytes a chunk holds. A page of wide rows is megabytes of text; a store such as PGlite
 * writes a value of that size in seconds (about 0.5 s a megabyte), holding its one connection (other
 * requests wait behind it, past their time limit) and growing its memory with the value. Chunks of
 * this size cost a store a short write each.
 */
export const CHUNK_BYTES = 256 * 1024

export const ExportRunnerLive = Layer.scoped(
  ExportRunner,
  Effect.gen(function* () {
    const services = yield* Effect.context<
      ExportStore | QueryRunner | InsightCompute | PersonStore | PropertyDefinitions
    >()
    const store = yield* ExportStore
    const config = yield* ZedConfig
    const running = yield* FiberSet.make()

    const write = (project: Project, asset: StoredExport, source: ExportSource) =>
      Effect.gen(function* () {
        const writer = WRITERS[asset.export_format]
        let columns: ReadonlyArray<string> | null = null
        let seq = 0
        let rows = 0
        let size = 0
        const flush = (text: string) => {
          const bytes = encoder.encode(text)
          size += bytes.length
          return Effect.forEach(
            Array.from({ length: Math.ceil(bytes.length / CHUNK_BYTES) }, (_, i) => i * CHUNK_BYTES),
            (start) => store.appendChunk(asset.id, seq++, bytes.subarray(start, start + CHUNK_BYTES)),
            { discard: true }
          )
        }
        const emit = (page: RowPage) => {
          let text = ""
          if (columns === null) {
            columns = page.columns
            text += writer.open(columns)
          }
          for (const row of page.rows) text += writer.row(columns, row, rows++ === 0)
          return text === "" ? Effect.void : flush(text)
        }
        yield* readRows(project, source, config.limits.exportPageRows, emit)
        if (columns === null) yield* emit({ columns: [], rows: [] })
        const end = writer.close(rows > 0)
        if (end !== "") yield* flush(end)
        return { rows, size }
      })

    const run = (project: Project, asset: StoredExport, source: ExportSource) =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(write(project, asset, source))
        const outcome = Exit.match(exit, {
          onSuccess: ({ rows, size }) => ({ has_content: true, exception: null, row_count: rows, content_size: size }),
          onFailure: (cause) => ({
            has_content: false,
            exception:
              (cause._tag === "Fail" ? userMessage(cause.error as QueryRunError) : null) ??
              "The export could not be written.",
            row_count: 0,
            content_size: 0
          })
        })
        if (Exit.isFailure(exit)) yield* Effect.logWarning("export failed", asset.id, exit.cause)
        yield* store.finish(project.id, asset.id, outcome)
      }).pipe(
        Effect.catchAll((error) => Effect.logWarning("an export's end could not be recorded", error.message)),
        Effect.provide(services)
      )

    // Exports past their `expires_after` are dropped now and then, with their content.
    const sweep = Effect.suspend(() => store.removeExpired(new Date())).pipe(
      Effect.catchAll((error) => Effect.logWarning("expired exports could not be removed", error.message))
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(Duration.hours(1))))

    return ExportRunner.of({
      start: (project, asset, source) => Effect.asVoid(FiberSet.run(running, run(project, asset, source)))
    })
  })
)

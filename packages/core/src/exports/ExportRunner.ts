import { Context, Duration, Effect, Exit, FiberSet, Layer, Schedule } from "effect"
import type { Project } from "../domain/models.js"
import { InsightCompute } from "../insights/compute.js"
import { QueryRunner, type QueryRunError, userMessage } from "../queries/runner.js"
import { EXPORT_CHUNK_BYTES, ExportStore, type StoredExport } from "../services/ExportStore.js"
import { PersonStore } from "../services/PersonStore.js"
import { PropertyDefinitions } from "../services/PropertyDefinitions.js"
import { ZedConfig } from "../services/ZedConfig.js"
import { WRITERS } from "./formats.js"
import { type ExportSource, readRows, type RowPage } from "./sources.js"

// Runs exports in the background: rows are read a page at a time and written as they come, in
// chunks of EXPORT_CHUNK_BYTES (what a page leaves over waits for the next), so a run holds a page
// and a chunk whatever the export's size. The export records how the run ended: its content
// complete (`has_content`) or the reason it failed (`exception`).

export class ExportRunner extends Context.Tag("@zed/core/ExportRunner")<
  ExportRunner,
  {
    /** Starts writing the export's content from its source; answers at once. */
    readonly start: (project: Project, asset: StoredExport, source: ExportSource) => Effect.Effect<void>
  }
>() {}

const encoder = new TextEncoder()

const joined = (a: Uint8Array, b: Uint8Array) => {
  if (a.length === 0) return b
  const bytes = new Uint8Array(a.length + b.length)
  bytes.set(a)
  bytes.set(b, a.length)
  return bytes
}

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
        // The bytes short of a whole chunk, written with the next text or at the end.
        let left = new Uint8Array(0)
        const flush = (text: string) => {
          const encoded = encoder.encode(text)
          size += encoded.length
          const bytes = joined(left, encoded)
          const whole = bytes.length - (bytes.length % EXPORT_CHUNK_BYTES)
          left = new Uint8Array(bytes.subarray(whole))
          return Effect.forEach(
            Array.from({ length: whole / EXPORT_CHUNK_BYTES }, (_, i) => i * EXPORT_CHUNK_BYTES),
            (start) => store.appendChunk(asset.id, seq++, bytes.subarray(start, start + EXPORT_CHUNK_BYTES)),
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
        yield* flush(writer.close(rows > 0))
        if (left.length > 0) yield* store.appendChunk(asset.id, seq, left)
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

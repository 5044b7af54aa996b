import { randomUUID } from "node:crypto"
import { Context, Effect, Layer } from "effect"
import { uuidv7 } from "../ingest/uuid.js"
import { periodicWrite } from "./periodicWrite.js"
import {
  FunctionLogStore,
  type LogEntry,
  type LogOwner,
  type LogSource,
  type LogType
} from "../services/FunctionLogStore.js"

// Plugins and functions log as they run, often on the ingestion path: entries are buffered and
// written in batches in the background, so logging never waits on storage nor fails an event.

export interface LogLine {
  readonly projectId: number
  readonly owner: LogOwner
  readonly pluginId?: number | undefined
  readonly source: LogSource
  readonly type: LogType
  readonly message: string
}

export class FunctionLogger extends Context.Tag("@zed/core/FunctionLogger")<
  FunctionLogger,
  {
    readonly log: (line: LogLine) => void
    /** Writes what is buffered (tests and shutdown wait on it). */
    readonly flush: Effect.Effect<void>
  }
>() {}

/** Longest message kept; a runaway print loop must not fill the log table. */
const MAX_MESSAGE = 10_000
/** Past this many buffered entries new ones are dropped until the next write. */
const MAX_BUFFERED = 50_000
const FLUSH_EVERY = "200 millis"

export const FunctionLoggerLive = Layer.scoped(
  FunctionLogger,
  Effect.gen(function* () {
    const store = yield* FunctionLogStore
    const instanceId = randomUUID()
    let buffer: Array<LogEntry> = []
    let dropped = 0
    // One writer at a time keeps entries in the order they were logged.
    const serialized = yield* periodicWrite(
      () => {
        const entries = buffer
        buffer = []
        return entries
      },
      store.append,
      "function logs: could not write entries",
      FLUSH_EVERY
    )
    return FunctionLogger.of({
      log: (line) => {
        if (buffer.length >= MAX_BUFFERED) {
          dropped++
          return
        }
        if (dropped > 0) {
          buffer.push(
            entryOf(
              {
                ...line,
                source: "SYSTEM",
                type: "WARN",
                message: `${dropped} log entries were dropped: logging faster than they could be written`
              },
              instanceId
            )
          )
          dropped = 0
        }
        buffer.push(entryOf(line, instanceId))
      },
      flush: serialized
    })
  })
)

const entryOf = (line: LogLine, instanceId: string): LogEntry => ({
  id: uuidv7(Date.now()),
  project_id: line.projectId,
  owner: line.owner,
  plugin_id: line.pluginId ?? null,
  timestamp: new Date(),
  source: line.source,
  type: line.type,
  message: line.message.length > MAX_MESSAGE ? `${line.message.slice(0, MAX_MESSAGE)}…` : line.message,
  instance_id: instanceId
})

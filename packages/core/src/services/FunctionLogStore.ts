import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

// Log entries written by plugin configs and zed functions as they run.

export const LOG_SOURCES = ["SYSTEM", "PLUGIN", "CONSOLE"] as const
export const LOG_TYPES = ["DEBUG", "LOG", "INFO", "WARN", "ERROR"] as const
export type LogSource = (typeof LOG_SOURCES)[number]
export type LogType = (typeof LOG_TYPES)[number]

/** Whose log: a plugin config (its numeric id as text) or a zed function (its UUID). */
export interface LogOwner {
  readonly kind: "plugin_config" | "zed_function"
  readonly id: string
}

export interface LogEntry {
  readonly id: string
  readonly project_id: number
  readonly owner: LogOwner
  /** The built-in plugin of a plugin config's entries; null for zed functions. */
  readonly plugin_id: number | null
  readonly timestamp: Date
  readonly source: LogSource
  readonly type: LogType
  readonly message: string
  /** The Zed process that wrote it. */
  readonly instance_id: string
}

export interface LogQuery {
  /** Any of these types; all when empty. */
  readonly types: ReadonlyArray<LogType>
  /** Case-insensitive part of the message. */
  readonly search?: string | undefined
  /** Exclusive bounds on `timestamp`. */
  readonly after?: Date | undefined
  readonly before?: Date | undefined
  readonly limit: number
  readonly offset: number
}

export class FunctionLogStore extends Context.Tag("@zed/core/FunctionLogStore")<
  FunctionLogStore,
  {
    readonly append: (entries: ReadonlyArray<LogEntry>) => Effect.Effect<void, StorageError>
    /** Newest first (entries of one instant in the order they were written, last first). */
    readonly list: (
      projectId: number,
      owner: LogOwner,
      query: LogQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<LogEntry> }, StorageError>
  }
>() {}

import { Context, Data, type Effect } from "effect"

// One service in front of ClickHouse, whichever engine runs it: a server or cluster over HTTP, or
// chDB in this process. Statements carry `{name:Type}` placeholders bound to `params`, never spliced
// values; settings travel beside the statement.

export type Settings = Readonly<Record<string, string | number | boolean>>

export interface Statement {
  readonly sql: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
  readonly settings?: Settings | undefined
  /** A short statement about other statements (KILL QUERY, system.processes): never queued behind them. */
  readonly control?: boolean | undefined
}

/** Query results read alike from either engine: 64-bit integers as text, as the HTTP interface gives them. */
export const RESULT_SETTINGS: Settings = { output_format_json_quote_64bit_integers: 1 }

/** Rows as arrays in column order, each column with its ClickHouse type (JSONCompact). */
export interface QueryResult {
  readonly meta: ReadonlyArray<{ readonly name: string; readonly type: string }>
  readonly data: ReadonlyArray<ReadonlyArray<unknown>>
}

/** ClickHouse refused or failed a statement; `code` is its error code (159: timeout, 394: killed). */
export class ClickHouseError extends Data.TaggedError("ClickHouseError")<{
  readonly code: number | undefined
  readonly message: string
  readonly cause?: unknown
}> {}

export const TIMEOUT_EXCEEDED = 159
export const QUERY_WAS_CANCELLED = 394

export class ClickHouse extends Context.Tag("@zed/clickhouse/ClickHouse")<
  ClickHouse,
  {
    readonly engine: "http" | "chdb"
    /** The cluster tables are spread over (Replicated + Distributed), if any. */
    readonly cluster: string | undefined
    readonly query: (statement: Statement) => Effect.Effect<QueryResult, ClickHouseError>
    readonly command: (statement: Statement) => Effect.Effect<void, ClickHouseError>
    /** Rows as JSON objects (JSONEachRow), in one insert. */
    readonly insert: (
      table: string,
      rows: ReadonlyArray<Record<string, unknown>>,
      settings?: Settings
    ) => Effect.Effect<void, ClickHouseError>
  }
>() {}

/** A ClickHouse error code from an error's message (`Code: 159. DB::Exception: …`) or fields. */
export const errorCode = (error: unknown): number | undefined => {
  const fields = error as { clickhouseCode?: unknown; code?: unknown } | undefined
  for (const value of [fields?.clickhouseCode, fields?.code]) {
    const n = typeof value === "string" ? Number(value) : value
    if (typeof n === "number" && Number.isInteger(n)) return n
  }
  const match = /Code: (\d+)\./.exec(error instanceof Error ? error.message : String(error))
  return match ? Number(match[1]) : undefined
}

export const clickhouseError = (error: unknown): ClickHouseError =>
  new ClickHouseError({
    code: errorCode(error),
    message: error instanceof Error ? error.message : String(error),
    cause: error
  })

/** A setting's value as ClickHouse reads it in a SETTINGS clause. */
const settingValue = (value: string | number | boolean): string =>
  typeof value === "string"
    ? `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
    : typeof value === "boolean"
      ? value
        ? "1"
        : "0"
      : String(value)

const SETTING_NAME = /^[a-z_][a-z0-9_]*$/

/** `SETTINGS a = 1, b = 'x'` for a statement that carries its settings in its text (chDB). */
export const settingsClause = (settings: Settings | undefined): string => {
  const entries = Object.entries(settings ?? {})
  if (entries.length === 0) return ""
  for (const [name] of entries) if (!SETTING_NAME.test(name)) throw new Error(`not a setting name: ${name}`)
  return ` SETTINGS ${entries.map(([name, value]) => `${name} = ${settingValue(value)}`).join(", ")}`
}

import { isUuid, QueryFailed, type ResultColumn, StorageError } from "@zed/core/storage"
import { Effect } from "effect"

// What the PostgreSQL and PGlite query executors share.

/**
 * The comment that leads an execution's statement, naming it in `pg_stat_activity`. Only a uuid
 * makes one, so it never carries anything but hex digits and dashes into the SQL.
 */
export const marker = (executionId: string) =>
  isUuid(executionId) ? `/* zed-query:${executionId.toLowerCase()} */ ` : undefined

/** The marker of an execution, or a defect: execution ids are made by Zed, never taken from a client. */
export const markerOf = (executionId: string) =>
  Effect.suspend(() => {
    const made = marker(executionId)
    return made === undefined
      ? Effect.dieMessage(`execution id ${JSON.stringify(executionId)} is not a uuid`)
      : Effect.succeed(made)
  })

// SQLSTATE classes and codes that mean the statement itself is at fault, whatever the data: what
// it computes (data exceptions, a subquery answering several rows), how it is written (syntax,
// unknown names, types), what it attempts (a write in the read-only transaction, an unsupported
// feature) or how big it is.
const QUERY_FAULT_CLASSES = new Set(["21", "22", "42", "54"])
const QUERY_FAULT_CODES = new Set(["0A000", "25006"])

/** `query_canceled`: from a statement timeout or a cancel request. */
export const QUERY_CANCELED = "57014"

export const sqlState = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/** A database error that is the query's fault is QueryFailed with the database's message; anything else a StorageError. */
export const queryFailure = (error: unknown): QueryFailed | StorageError => {
  const code = sqlState(error)
  const message = error instanceof Error ? error.message : String(error)
  return code !== undefined && (QUERY_FAULT_CLASSES.has(code.slice(0, 2)) || QUERY_FAULT_CODES.has(code))
    ? new QueryFailed({ message })
    : new StorageError({ message: `query failed: ${message}`, cause: error })
}

export const columnsOf = (
  fields: ReadonlyArray<{ readonly name: string; readonly dataTypeID: number }>
): Array<ResultColumn> => fields.map(({ dataTypeID, name }) => ({ name, typeOid: dataTypeID }))

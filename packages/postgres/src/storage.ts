import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import type { SqlClient } from "@effect/sql"
import * as PgClient from "@effect/sql-pg/PgClient"
import { type ZedStorage } from "@zed/core"
import {
  processQueryStores,
  type QueryCache,
  type QueryExecutor,
  type QueryStatusStore,
  StorageError
} from "@zed/core/storage"
import { Duration, Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { autoAnalyze } from "./autoAnalyze.js"
import { dataDirLock } from "./dataDirLock.js"
import { migrate } from "./migrations/index.js"
import * as PgliteClient from "./PgliteClient.js"
import { open as openPgliteThread, PgliteThread } from "./pgliteThread.js"
import { ApiKeyStoreSql } from "./stores/ApiKeyStoreSql.js"
import { CohortStoreSql } from "./stores/CohortStoreSql.js"
import { EarlyAccessFeatureStoreSql } from "./stores/EarlyAccessFeatureStoreSql.js"
import { EventStoreSql, type InsertStyle } from "./stores/EventStoreSql.js"
import { FlagInputsSql } from "./stores/FlagInputsSql.js"
import { FlagStoreSql } from "./stores/FlagStoreSql.js"
import { FunctionLogStoreSql } from "./stores/FunctionLogStoreSql.js"
import { FunctionMetricStoreSql } from "./stores/FunctionMetricStoreSql.js"
import { GroupStoreSql } from "./stores/GroupStoreSql.js"
import { HeatmapStoreSql } from "./stores/HeatmapStoreSql.js"
import { InsightStoreSql } from "./stores/InsightStoreSql.js"
import { InviteStoreSql } from "./stores/InviteStoreSql.js"
import { OrganizationStoreSql } from "./stores/OrganizationStoreSql.js"
import { PersonStoreSql } from "./stores/PersonStoreSql.js"
import { PlaylistStoreSql } from "./stores/PlaylistStoreSql.js"
import { PluginConfigStoreSql } from "./stores/PluginConfigStoreSql.js"
import { ProjectStoreSql } from "./stores/ProjectStoreSql.js"
import { PropertyDefinitionsSql } from "./stores/PropertyDefinitionsSql.js"
import { AnnotationStoreSql } from "./stores/AnnotationStoreSql.js"
import { ActionStoreSql } from "./stores/ActionStoreSql.js"
import { ExperimentStoreSql } from "./stores/ExperimentStoreSql.js"
import { HoldoutStoreSql } from "./stores/HoldoutStoreSql.js"
import { ExportContentFiles, ExportContentRows, type ExportContentStore } from "./stores/exportContent.js"
import { ExportStoreSql } from "./stores/ExportStoreSql.js"
import { QueryCacheSql } from "./stores/QueryCacheSql.js"
import { QueryExecutorPg } from "./stores/QueryExecutorPg.js"
import { QueryExecutorPglite } from "./stores/QueryExecutorPglite.js"
import { QueryStatusStoreSql } from "./stores/QueryStatusStoreSql.js"
import { RecordingStoreSql } from "./stores/RecordingStoreSql.js"
import { SessionStoreSql } from "./stores/SessionStoreSql.js"
import { StorageProbeSql } from "./stores/StorageProbeSql.js"
import { SurveyStoreSql } from "./stores/SurveyStoreSql.js"
import { cacheRequestReads } from "./requestReadsCache.js"
import { orStorageError } from "./stores/sqlErrors.js"
import { TransactorSql } from "./stores/TransactorSql.js"
import { UsageStoreSql } from "./stores/UsageStoreSql.js"
import { UserStoreSql } from "./stores/UserStoreSql.js"
import { ZedFunctionStoreSql } from "./stores/ZedFunctionStoreSql.js"

const INT8 = 20

const stores = (options: SqlStorageOptions) =>
  Layer.mergeAll(
    OrganizationStoreSql,
    ProjectStoreSql,
    UserStoreSql,
    ApiKeyStoreSql,
    SessionStoreSql,
    InviteStoreSql,
    TransactorSql(options.writeConcurrency, options.soleWriter),
    EventStoreSql(options.insertStyle),
    PersonStoreSql,
    GroupStoreSql,
    FlagStoreSql,
    CohortStoreSql,
    InsightStoreSql,
    RecordingStoreSql,
    PlaylistStoreSql,
    SurveyStoreSql,
    EarlyAccessFeatureStoreSql,
    AnnotationStoreSql,
    ActionStoreSql,
    ExperimentStoreSql,
    HoldoutStoreSql,
    Layer.provide(ExportStoreSql, options.exportContent),
    HeatmapStoreSql,
    ZedFunctionStoreSql,
    PluginConfigStoreSql,
    FunctionLogStoreSql,
    FunctionMetricStoreSql,
    FlagInputsSql,
    UsageStoreSql,
    PropertyDefinitionsSql,
    StorageProbeSql,
    options.queryStores,
    options.queryExecutor
  )

const migrations = Layer.effectDiscard(
  orStorageError(migrate).pipe(
    Effect.mapError((error) =>
      error._tag === "MigrationError" ? new StorageError({ message: error.message, cause: error }) : error
    )
  )
)

export interface SqlStorageOptions {
  /** How many write transactions the client can usefully run at once. */
  readonly writeConcurrency: number
  /** Whether this process is the database's only writer (true only for an embedded database). */
  readonly soleWriter: boolean
  readonly insertStyle: InsertStyle
  /** How ZedQL runs on this client: stopping a statement differs from one engine to another. */
  readonly queryExecutor: Layer.Layer<QueryExecutor, StorageError, SqlClient.SqlClient>
  /** Where query results and background statuses are kept. */
  readonly queryStores: Layer.Layer<QueryCache | QueryStatusStore, never, SqlClient.SqlClient>
  /** Where exports' content is kept. */
  readonly exportContent: Layer.Layer<ExportContentStore, StorageError, SqlClient.SqlClient>
}

/** The storage ports over any SQL client speaking Postgres, migrated before first use. */
export const sqlStorage = (
  client: Layer.Layer<SqlClient.SqlClient, StorageError>,
  options: SqlStorageOptions
): ZedStorage => stores(options).pipe(Layer.provide(migrations), Layer.provide(client))

export interface PgliteOptions {
  /** Directory of the database; a temporary one, removed on close, when absent. */
  readonly dataDir?: string | undefined
}

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "zed-pglite-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const pgliteThread = (options: PgliteOptions) =>
  Layer.scoped(
    PgliteThread,
    Effect.gen(function* () {
      // Stopping a statement reopens the directory on a new thread, so a database that is not kept
      // still lives in a directory: in memory, it would be lost with the thread.
      if (options.dataDir === undefined) return yield* openPgliteThread(join(yield* temporaryDirectory, "pgdata"))
      const dataDir = resolve(options.dataDir)
      mkdirSync(dirname(dataDir), { recursive: true })
      yield* dataDirLock(`${dataDir}.lock`)
      return yield* openPgliteThread(dataDir)
    })
  )

/** A client on the embedded store's data directory, holding its lock, not migrated: for tools that read it. */
export const pgliteClient = (options: PgliteOptions = {}): Layer.Layer<SqlClient.SqlClient, StorageError> =>
  Layer.provide(PgliteClient.layer, pgliteThread(options))

/** The embedded store: PostgreSQL in WebAssembly, on a thread of this process, with its data under `dataDir`. */
export const pgliteStorage = (options: PgliteOptions = {}): ZedStorage => {
  const thread = pgliteThread(options)
  // One session, and the data directory's lock makes this process its only writer. The client and
  // the query executor share the one thread (a layer is built once).
  const client = Layer.provide(PgliteClient.layer, thread)
  const storage = sqlStorage(client, {
    writeConcurrency: 1,
    soleWriter: true,
    insertStyle: "json",
    queryStores: processQueryStores,
    queryExecutor: Layer.provide(QueryExecutorPglite, thread),
    exportContent: Layer.provide(ExportContentFiles, thread)
  })
  // Without autovacuum, the planner's statistics are kept here.
  return Layer.merge(storage, Layer.provide(autoAnalyze, client)).pipe(Layer.map(cacheRequestReads))
}

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  readonly maxConnections?: number | undefined
  /** Write transactions run at once by ingestion (default: half the connections, at most 4). */
  readonly writeConcurrency?: number | undefined
}

/** A client of a PostgreSQL server, not migrated: for tools that read it, and the store below. */
export const postgresClient = (options: PostgresOptions): Layer.Layer<SqlClient.SqlClient, StorageError> =>
  PgClient.layer({
    url: Redacted.make(options.url),
    maxConnections: options.maxConnections ?? 10,
    applicationName: "zed",
    // Without it a server that accepts connections and never answers would hold a start (or a
    // request waiting for a connection) forever; a request past the storage time limit has given up anyway.
    connectTimeout: Duration.seconds(10),
    // Same as PGlite: bigint columns (counts) arrive as numbers.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
    }
  }).pipe(
    Layer.mapError((cause) => new StorageError({ message: `could not connect to PostgreSQL: ${cause.message}`, cause }))
  )

/** A PostgreSQL server through `@effect/sql-pg`. */
export const postgresStorage = (options: PostgresOptions): ZedStorage => {
  const connections = options.maxConnections ?? 10
  // Writers take a few connections and leave the rest to reads.
  return sqlStorage(postgresClient({ ...options, maxConnections: connections }), {
    writeConcurrency: options.writeConcurrency ?? Math.max(1, Math.min(4, Math.floor(connections / 2))),
    soleWriter: false,
    insertStyle: "values",
    // In the database, so that any instance answers for a query another one runs.
    queryStores: Layer.merge(QueryCacheSql, QueryStatusStoreSql),
    queryExecutor: QueryExecutorPg,
    exportContent: ExportContentRows
  })
}

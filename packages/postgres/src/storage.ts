import { mkdirSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import type { SqlClient } from "@effect/sql"
import * as PgClient from "@effect/sql-pg/PgClient"
import { StorageError, type ZedStorage } from "@zed/core"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { dataDirLock } from "./dataDirLock.js"
import { migrate } from "./migrations/index.js"
import * as PgliteClient from "./PgliteClient.js"
import { ApiKeyStoreSql } from "./stores/ApiKeyStoreSql.js"
import { CohortStoreSql } from "./stores/CohortStoreSql.js"
import { EventStoreSql, type InsertStyle } from "./stores/EventStoreSql.js"
import { FlagInputsSql } from "./stores/FlagInputsSql.js"
import { FlagStoreSql } from "./stores/FlagStoreSql.js"
import { GroupStoreSql } from "./stores/GroupStoreSql.js"
import { OrganizationStoreSql } from "./stores/OrganizationStoreSql.js"
import { PersonStoreSql } from "./stores/PersonStoreSql.js"
import { ProjectStoreSql } from "./stores/ProjectStoreSql.js"
import { orStorageError } from "./stores/sqlErrors.js"
import { TransactorSql } from "./stores/TransactorSql.js"
import { UsageStoreSql } from "./stores/UsageStoreSql.js"
import { UserStoreSql } from "./stores/UserStoreSql.js"

const INT8 = 20

const stores = (options: SqlStorageOptions) => Layer.mergeAll(
  OrganizationStoreSql,
  ProjectStoreSql,
  UserStoreSql,
  ApiKeyStoreSql,
  TransactorSql(options.writeConcurrency, options.soleWriter),
  EventStoreSql(options.insertStyle),
  PersonStoreSql,
  GroupStoreSql,
  FlagStoreSql,
  CohortStoreSql,
  FlagInputsSql,
  UsageStoreSql
)

const migrations = Layer.effectDiscard(orStorageError(migrate).pipe(
  Effect.mapError((error) => error._tag === "MigrationError" ? new StorageError({ message: error.message, cause: error }) : error)
))

export interface SqlStorageOptions {
  /** How many write transactions the client can usefully run at once. */
  readonly writeConcurrency: number
  /** Whether this process is the database's only writer (true only for an embedded database). */
  readonly soleWriter: boolean
  readonly insertStyle: InsertStyle
}

/** The storage ports over any SQL client speaking Postgres, migrated before first use. */
export const sqlStorage = (client: Layer.Layer<SqlClient.SqlClient, StorageError>, options: SqlStorageOptions): ZedStorage =>
  stores(options).pipe(Layer.provide(migrations), Layer.provide(client))

export interface PgliteOptions {
  /** Directory of the database; in memory when absent. */
  readonly dataDir?: string | undefined
}

/** The embedded store: PostgreSQL in WebAssembly, in this process, with its data under `dataDir`. */
export const pgliteStorage = (options: PgliteOptions = {}): ZedStorage => {
  const open = Effect.gen(function*() {
    const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir)
    if (dataDir !== undefined) {
      mkdirSync(dirname(dataDir), { recursive: true })
      yield* dataDirLock(`${dataDir}.lock`)
    }
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => PGlite.create(dataDir, { parsers: { [INT8]: (value: string) => Number(value) } }),
        catch: (cause) => new StorageError({ message: `could not open PGlite at ${dataDir ?? "memory"}`, cause })
      }),
      (db) => Effect.promise(() => db.close())
    )
  })
  // One session, and the data directory's lock makes this process its only writer.
  return sqlStorage(Layer.unwrapScoped(Effect.map(open, PgliteClient.layer)), { writeConcurrency: 1, soleWriter: true, insertStyle: "json" })
}

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  readonly maxConnections?: number | undefined
  /** Write transactions run at once by ingestion (default: half the connections, at most 4). */
  readonly writeConcurrency?: number | undefined
}

/** A PostgreSQL server through `@effect/sql-pg`. */
export const postgresStorage = (options: PostgresOptions): ZedStorage => {
  const connections = options.maxConnections ?? 10
  // Writers take a few connections and leave the rest to reads.
  return sqlStorage(
    PgClient.layer({
      url: Redacted.make(options.url),
      maxConnections: connections,
      applicationName: "zed",
      // Same as PGlite above: bigint columns (counts) arrive as numbers.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
      }
    }).pipe(Layer.mapError((cause) => new StorageError({ message: `could not connect to PostgreSQL: ${cause.message}`, cause }))),
    {
      writeConcurrency: options.writeConcurrency ?? Math.max(1, Math.min(4, Math.floor(connections / 2))),
      soleWriter: false,
      insertStyle: "values"
    }
  )
}

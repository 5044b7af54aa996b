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
import { OrganizationStoreSql } from "./stores/OrganizationStoreSql.js"
import { ProjectStoreSql } from "./stores/ProjectStoreSql.js"
import { orStorageError } from "./stores/sqlErrors.js"
import { TransactorSql } from "./stores/TransactorSql.js"
import { UserStoreSql } from "./stores/UserStoreSql.js"

const INT8 = 20

const stores = Layer.mergeAll(OrganizationStoreSql, ProjectStoreSql, UserStoreSql, ApiKeyStoreSql, TransactorSql)

const migrations = Layer.effectDiscard(orStorageError(migrate).pipe(
  Effect.mapError((error) => error._tag === "MigrationError" ? new StorageError({ message: error.message, cause: error }) : error)
))

/** The storage ports over any SQL client speaking Postgres, migrated before first use. */
export const sqlStorage = (client: Layer.Layer<SqlClient.SqlClient, StorageError>): ZedStorage =>
  stores.pipe(Layer.provide(migrations), Layer.provide(client))

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
  return sqlStorage(Layer.unwrapScoped(Effect.map(open, PgliteClient.layer)))
}

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  readonly maxConnections?: number | undefined
}

/** A PostgreSQL server through `@effect/sql-pg`. */
export const postgresStorage = (options: PostgresOptions): ZedStorage =>
  sqlStorage(
    PgClient.layer({
      url: Redacted.make(options.url),
      maxConnections: options.maxConnections ?? 10,
      applicationName: "zed",
      // Same as PGlite above: bigint columns (counts) arrive as numbers.
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
      }
    }).pipe(Layer.mapError((cause) => new StorageError({ message: `could not connect to PostgreSQL: ${cause.message}`, cause })))
  )

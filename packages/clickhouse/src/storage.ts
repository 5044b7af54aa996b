import { type ZedStorage } from "@zed/core"
import {
  EventStore,
  GroupStore,
  PersonStore,
  QueryExecutor,
  RecordingStore,
  StorageError,
  Transactor
} from "@zed/core/storage"
import { Context, Effect, Layer } from "effect"
import { ClickHouse, type ClickHouseError } from "./ClickHouse.js"
import { withOutbox } from "./outbox.js"
import { migrateClickHouse } from "./schema.js"
import { EventStoreClickHouse } from "./stores/EventStoreClickHouse.js"
import { mirrorGroups, mirrorPersons, mirrorRecordings } from "./stores/mirrors.js"
import { QueryExecutorClickHouse } from "./stores/QueryExecutorClickHouse.js"

// Zed's storage with events and ZedQL on ClickHouse: a metadata store (PGlite or PostgreSQL) keeps
// everything else, and still processes persons, groups and recordings, whose changes are written
// to ClickHouse too.

export interface ClickHouseStorageOptions {
  /** Projects, keys, insights, flags, persons as ingestion processes them… */
  readonly metadata: ZedStorage
  /** `chdbClickHouse(...)` or `httpClickHouse(...)`. */
  readonly clickhouse: Layer.Layer<ClickHouse, ClickHouseError>
}

const storageError = (error: ClickHouseError) =>
  new StorageError({ message: `ClickHouse: ${error.message}`, cause: error })

export const clickhouseStorage = (options: ClickHouseStorageOptions): ZedStorage =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const metadata = yield* Layer.build(options.metadata)
      const engine = yield* Layer.build(options.clickhouse).pipe(
        Effect.tap((context) => Effect.provide(migrateClickHouse, context)),
        Effect.mapError(storageError)
      )
      const ch = Context.get(engine, ClickHouse)
      const own = yield* Layer.build(Layer.merge(EventStoreClickHouse, QueryExecutorClickHouse)).pipe(
        Effect.provide(engine)
      )
      return metadata.pipe(
        Context.add(EventStore, Context.get(own, EventStore)),
        Context.add(QueryExecutor, Context.get(own, QueryExecutor)),
        Context.add(PersonStore, mirrorPersons(Context.get(metadata, PersonStore), ch)),
        Context.add(GroupStore, mirrorGroups(Context.get(metadata, GroupStore), ch)),
        Context.add(RecordingStore, mirrorRecordings(Context.get(metadata, RecordingStore), ch)),
        Context.add(Transactor, withOutbox(Context.get(metadata, Transactor)))
      )
    })
  )

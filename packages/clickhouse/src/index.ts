export * from "./ClickHouse.js"
export { chdbClickHouse, type ChdbOptions } from "./chdb.js"
export { httpClickHouse, type HttpOptions } from "./http.js"
export { migrateClickHouse, schemaStatements } from "./schema.js"
export { clickhouseStorage, type ClickHouseStorageOptions } from "./storage.js"
export {
  migrateEvents,
  type MigrateEventsOptions,
  type MigrationProgress,
  type MigrationResult
} from "./migrateEvents.js"

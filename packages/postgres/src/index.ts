export * as PgliteClient from "./PgliteClient.js"
export { pgliteStorage, type PgliteOptions, postgresStorage, type PostgresOptions, sqlStorage } from "./storage.js"
export { type TemporaryDatabase, temporaryDatabase } from "./temporaryDatabase.js"

export * as PgliteClient from "./PgliteClient.js"
export * as PgliteThread from "./pgliteThread.js"
export {
  pgliteClient,
  pgliteStorage,
  type PgliteOptions,
  postgresClient,
  postgresStorage,
  type PostgresOptions,
  sqlStorage,
  type SqlStorageOptions
} from "./storage.js"
export { type TemporaryDatabase, temporaryDatabase } from "./temporaryDatabase.js"
export { leanWasmCompilation } from "./leanWasm.js"

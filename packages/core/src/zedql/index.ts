export {
  type CompiledZedQL,
  compileZedQL,
  type CompileOptions,
  QUERY_DEFAULT_LIMIT,
  QUERY_MAX_LIMIT
} from "./compile.js"
export { type Span, type ZedQLError, ZedQLQueryError, ZedQLSyntaxError } from "./errors.js"
export { QueryFilters } from "./filters.js"
export type { Dialect, PrintedQuery, PrintOptions } from "./printer.js"
export { postgres } from "./postgres/print.js"
export { clickhouse, CLICKHOUSE_QUERY_SETTINGS } from "./clickhouse/print.js"
export { clickhouseName, type ZType } from "./types.js"
export {
  CLICKHOUSE_TABLES,
  type ClickHouseColumn,
  type ClickHouseTable,
  clickhouseTable,
  DATETIME
} from "./clickhouse/tables.js"

import { CLICKHOUSE_TABLES, type ClickHouseTable } from "@zed/core/domain"
import { Effect } from "effect"
import { ClickHouse } from "./ClickHouse.js"

// The ClickHouse tables, made from the physical descriptions the printer reads. On one node, each
// is a ReplacingMergeTree. On a cluster, each node holds a Replicated `<name>_local` and `<name>` is
// a Distributed table over them, sharded by a stable key; statements that change rows go to the
// local tables on every node.

const engine = (table: ClickHouseTable, replicated: boolean) => {
  const version = table.versioned?.version ?? "inserted_at"
  return replicated
    ? `ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/${table.name}', '{replica}', ${version})`
    : `ReplacingMergeTree(${version})`
}

const body = (table: ClickHouseTable, replicated: boolean) =>
  `(${table.columns.map((c) => `\`${c.name}\` ${c.type}`).join(", ")}) ENGINE = ${engine(table, replicated)}` +
  (table.partitionBy === undefined ? "" : ` PARTITION BY ${table.partitionBy}`) +
  ` ORDER BY (project_id, ${table.orderBy.join(", ")})`

/** The statements that create every table, idempotently. */
export const schemaStatements = (cluster: string | undefined): ReadonlyArray<string> =>
  CLICKHOUSE_TABLES.flatMap((table) =>
    cluster === undefined
      ? [`CREATE TABLE IF NOT EXISTS \`${table.name}\` ${body(table, false)}`]
      : [
          `CREATE TABLE IF NOT EXISTS \`${table.name}_local\` ON CLUSTER \`${cluster}\` ${body(table, true)}`,
          `CREATE TABLE IF NOT EXISTS \`${table.name}\` ON CLUSTER \`${cluster}\` AS \`${table.name}_local\` ENGINE = Distributed(\`${cluster}\`, currentDatabase(), \`${table.name}_local\`, ${table.shardBy})`
        ]
  )

export const migrateClickHouse = Effect.flatMap(ClickHouse, (ch) =>
  Effect.forEach(schemaStatements(ch.cluster), (sql) => ch.command({ sql }), { discard: true })
)

/** Where statements that change rows go: the table itself, or on a cluster its local tables on every node. */
export const mutationTarget = (cluster: string | undefined, table: string) =>
  cluster === undefined ? `\`${table}\`` : `\`${table}_local\` ON CLUSTER \`${cluster}\``

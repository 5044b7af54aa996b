import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { CLICKHOUSE_TABLES } from "@zed/core/domain"
import { Effect, ManagedRuntime } from "effect"
import { ClickHouse, chdbClickHouse, schemaStatements } from "../src/index.js"

// The tables as ClickHouse gets them: on one node created for real (and again, harmlessly); on a
// cluster, statements ClickHouse parses, with each table replicated and sharded by its stable key.

describe("the ClickHouse schema", () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-ch-schema-"))
  const runtime = ManagedRuntime.make(chdbClickHouse({ path: dir }))
  const query = (sql: string) =>
    runtime.runPromise(Effect.flatMap(ClickHouse, (ch) => ch.query({ sql }))).then((r) => r.data)
  afterAll(async () => {
    await runtime.dispose()
    rmSync(dir, { recursive: true })
  })

  it("creates every table with the described columns, twice without harm", async () => {
    for (let i = 0; i < 2; i++) for (const sql of schemaStatements(undefined)) await query(sql)
    for (const table of CLICKHOUSE_TABLES) {
      const columns = await query(
        `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${table.name}' ORDER BY position`
      )
      expect(columns.map(([name]) => name)).toEqual(table.columns.map((c) => c.name))
      const [[engine]] = (await query(
        `SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = '${table.name}'`
      )) as Array<Array<unknown>>
      expect(engine).toBe("ReplacingMergeTree")
    }
  })

  it("on a cluster, replicates each table on every node and shards it by its stable key", async () => {
    const statements = schemaStatements("analytics")
    expect(statements).toHaveLength(CLICKHOUSE_TABLES.length * 2)
    for (const table of CLICKHOUSE_TABLES) {
      const local = statements.find((s) => s.includes(`\`${table.name}_local\` ON CLUSTER \`analytics\` (`))!
      const distributed = statements.find((s) => s.includes(`\`${table.name}\` ON CLUSTER \`analytics\` AS`))!
      expect(local).toContain(
        `ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/${table.name}', '{replica}'`
      )
      expect(distributed).toContain(
        `Distributed(\`analytics\`, currentDatabase(), \`${table.name}_local\`, ${table.shardBy})`
      )
      // ClickHouse's own parser accepts both (running them needs the cluster).
      for (const sql of [local, distributed]) expect((await query(`EXPLAIN AST ${sql}`)).length).toBeGreaterThan(0)
    }
  })
})

import { SqlClient } from "@effect/sql"
import { type Organization, OrganizationStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const OrganizationStoreSql = Layer.effect(
  OrganizationStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal("id, name, flag_evaluation_quota, created_at")
    return OrganizationStore.of({
      create: ({ name }) =>
        orStorageError(sql<Organization>`INSERT INTO organizations (name) VALUES (${name}) RETURNING ${columns}`).pipe(
          Effect.map((rows) => rows[0]!)
        ),
      get: (id) =>
        orStorageError(sql<Organization>`SELECT ${columns} FROM organizations WHERE id = ${id}`).pipe(
          Effect.map(Arr.head)
        ),
      update: (id, patch) =>
        orStorageError(sql<Organization>`
          UPDATE organizations SET
            name = COALESCE(${patch.name ?? null}, name),
            flag_evaluation_quota = ${patch.flag_evaluation_quota === undefined ? sql`flag_evaluation_quota` : sql`${patch.flag_evaluation_quota}::bigint`}
          WHERE id = ${id} RETURNING ${columns}`).pipe(Effect.map(Arr.head)),
      any: orStorageError(sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM organizations) AS found`).pipe(
        Effect.map((rows) => rows[0]!.found)
      )
    })
  })
)

import { SqlClient } from "@effect/sql"
import { type Organization, OrganizationStore } from "@zed/core"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const OrganizationStoreSql = Layer.effect(
  OrganizationStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return OrganizationStore.of({
      create: ({ name }) =>
        orStorageError(sql<Organization>`INSERT INTO organizations (name) VALUES (${name}) RETURNING id, name, created_at`)
          .pipe(Effect.map((rows) => rows[0]!)),
      get: (id) =>
        orStorageError(sql<Organization>`SELECT id, name, created_at FROM organizations WHERE id = ${id}`)
          .pipe(Effect.map(Arr.head)),
      any: orStorageError(sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM organizations) AS found`)
        .pipe(Effect.map((rows) => rows[0]!.found))
    })
  })
)

import { SqlClient } from "@effect/sql"
import { type Invite, InviteStore, isUuid } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { orStorageError } from "./sqlErrors.js"

export const InviteStoreSql = Layer.effect(
  InviteStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal("id, organization_id, target_email, first_name, level, created_by, created_at")
    return InviteStore.of({
      create: (input) =>
        orStorageError(sql<Invite>`
          INSERT INTO invites (organization_id, target_email, first_name, level, created_by)
          VALUES (${input.organization_id}, ${input.target_email}, ${input.first_name}, ${input.level}, ${input.created_by})
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!)),
      list: (organizationId) =>
        orStorageError(
          sql<Invite>`SELECT ${columns} FROM invites WHERE organization_id = ${organizationId} ORDER BY created_at DESC, id`
        ),
      get: (id) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(sql<Invite>`SELECT ${columns} FROM invites WHERE id = ${id}`).pipe(Effect.map(Arr.head)),
      remove: (id) =>
        !isUuid(id)
          ? Effect.succeed(false)
          : orStorageError(sql`DELETE FROM invites WHERE id = ${id} RETURNING 1`).pipe(
              Effect.map((rows) => rows.length > 0)
            )
    })
  })
)

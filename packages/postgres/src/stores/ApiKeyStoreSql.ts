import { SqlClient } from "@effect/sql"
import { ApiKeyStore, type PersonalApiKey, type User } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { orStorageError } from "./sqlErrors.js"
import { userColumns } from "./UserStoreSql.js"

const keyColumns =
  "k.id, k.user_id, k.label, k.mask_value, k.secure_value, k.scopes, k.scoped_teams, k.created_at, k.last_used_at"

export const ApiKeyStoreSql = Layer.effect(
  ApiKeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keyPrefix = "key__"
    return ApiKeyStore.of({
      create: (input) =>
        orStorageError(sql<PersonalApiKey>`
          WITH k AS (
            INSERT INTO personal_api_keys (user_id, label, mask_value, secure_value, scopes, scoped_teams)
            VALUES (${input.user_id}, ${input.label}, ${input.mask_value}, ${input.secure_value},
              ${JSON.stringify(input.scopes)}::jsonb, ${input.scoped_teams === null ? null : JSON.stringify(input.scoped_teams)}::jsonb)
            RETURNING *
          ) SELECT ${sql.literal(keyColumns)} FROM k`).pipe(Effect.map((rows) => rows[0]!)),
      // One row carries both: the key's columns prefixed, then the owner's.
      findBySecureValue: (secureValue) =>
        orStorageError(sql<Record<string, unknown>>`
          SELECT ${sql.literal(keyColumns.replace(/k\.(\w+)/g, `k.$1 AS ${keyPrefix}$1`))}, ${sql.literal(userColumns)}
          FROM personal_api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.secure_value = ${secureValue}`).pipe(
          Effect.map(Arr.head),
          Effect.map(
            Option.map((row) => {
              const key: Record<string, unknown> = {}
              const user: Record<string, unknown> = {}
              for (const [column, value] of Object.entries(row)) {
                if (column.startsWith(keyPrefix)) key[column.slice(keyPrefix.length)] = value
                else user[column] = value
              }
              return { key: key as unknown as PersonalApiKey, user: user as unknown as User }
            })
          )
        ),
      markUsed: (id, at) =>
        orStorageError(sql`UPDATE personal_api_keys SET last_used_at = ${at} WHERE id = ${id}`).pipe(Effect.asVoid)
    })
  })
)

import { SqlClient } from "@effect/sql"
import { ApiKeyStore, isUuid, type PersonalApiKey, type User } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"
import { userColumns } from "./UserStoreSql.js"

const keyColumns =
  "k.id, k.user_id, k.label, k.mask_value, k.secure_value, k.scopes, k.scoped_teams, k.scoped_organizations, k.created_at, k.last_used_at, k.last_rolled_at"

const JSON_COLUMNS = new Set(["scopes", "scoped_teams", "scoped_organizations"])

export const ApiKeyStoreSql = Layer.effect(
  ApiKeyStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keyPrefix = "key__"
    const columns = sql.literal(keyColumns)
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value))
    return ApiKeyStore.of({
      create: (input) =>
        orStorageError(sql<PersonalApiKey>`
          WITH k AS (
            INSERT INTO personal_api_keys (user_id, label, mask_value, secure_value, scopes, scoped_teams, scoped_organizations)
            VALUES (${input.user_id}, ${input.label}, ${input.mask_value}, ${input.secure_value},
              ${json(input.scopes)}::jsonb, ${json(input.scoped_teams)}::jsonb, ${json(input.scoped_organizations)}::jsonb)
            RETURNING *
          ) SELECT ${columns} FROM k`).pipe(Effect.map((rows) => rows[0]!)),
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
        orStorageError(sql`UPDATE personal_api_keys SET last_used_at = ${at} WHERE id = ${id}`).pipe(Effect.asVoid),
      list: (userId) =>
        orStorageError(
          sql<PersonalApiKey>`SELECT ${columns} FROM personal_api_keys k WHERE k.user_id = ${userId} ORDER BY k.created_at DESC, k.id`
        ),
      get: (userId, id) =>
        !isUuid(id)
          ? Effect.succeed(Option.none())
          : orStorageError(
              sql<PersonalApiKey>`SELECT ${columns} FROM personal_api_keys k WHERE k.user_id = ${userId} AND k.id = ${id}`
            ).pipe(Effect.map(Arr.head)),
      update: (userId, id, patch) => {
        if (!isUuid(id)) return Effect.succeed(Option.none())
        const sets = patchSets(sql, patch, JSON_COLUMNS)
        if (sets.length === 0)
          return orStorageError(
            sql<PersonalApiKey>`SELECT ${columns} FROM personal_api_keys k WHERE k.user_id = ${userId} AND k.id = ${id}`
          ).pipe(Effect.map(Arr.head))
        return orStorageError(sql<PersonalApiKey>`
          WITH k AS (UPDATE personal_api_keys SET ${sql.csv(sets)} WHERE user_id = ${userId} AND id = ${id} RETURNING *)
          SELECT ${columns} FROM k`).pipe(Effect.map(Arr.head))
      },
      remove: (userId, id) =>
        !isUuid(id)
          ? Effect.succeed(false)
          : orStorageError(
              sql`DELETE FROM personal_api_keys WHERE user_id = ${userId} AND id = ${id} RETURNING 1`
            ).pipe(Effect.map((rows) => rows.length > 0))
    })
  })
)

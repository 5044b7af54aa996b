import { SqlClient, type Statement } from "@effect/sql"
import { type User, UserStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"

/** The user columns, as selected from `users` aliased `u`. */
export const userColumns = `u.id, u.uuid, u.distinct_id, u.first_name, u.last_name, u.email, u.is_email_verified,
  u.hedgehog_config, u.role_at_organization, u.organization_id, u.current_project_id, u.is_active, u.level,
  u.created_at AS date_joined`

export const UserStoreSql = Layer.effect(
  UserStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(userColumns)
    const one = (where: Statement.Fragment) =>
      orStorageError(sql<User>`SELECT ${columns} FROM users u WHERE ${where}`).pipe(Effect.map(Arr.head))
    return UserStore.of({
      create: (input) =>
        orStorageError(sql<User>`
          WITH u AS (
            INSERT INTO users (organization_id, email, first_name, current_project_id, level, password_hash)
            VALUES (${input.organization_id}, ${input.email}, ${input.first_name}, ${input.current_project_id},
              ${input.level}, ${input.password_hash ?? null})
            RETURNING *
          ) SELECT ${columns} FROM u`).pipe(Effect.map((rows) => rows[0]!)),
      get: (id) => one(sql`u.id = ${id}`),
      getMany: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<User>`SELECT ${columns} FROM users u WHERE u.id = ANY(${ids}::int[]) ORDER BY u.id`),
      findByEmail: (email) => one(sql`u.email = ${email}`),
      first: orStorageError(sql<User>`SELECT ${columns} FROM users u ORDER BY u.id LIMIT 1`).pipe(Effect.map(Arr.head)),
      list: (organizationId) =>
        orStorageError(
          sql<User>`SELECT ${columns} FROM users u WHERE u.organization_id = ${organizationId} AND u.is_active ORDER BY u.id`
        ),
      update: (id, patch) => {
        const sets = patchSets(sql, patch)
        if (sets.length === 0) return one(sql`u.id = ${id}`)
        return orStorageError(sql<User>`
          WITH u AS (UPDATE users SET ${sql.csv(sets)} WHERE id = ${id} RETURNING *)
          SELECT ${columns} FROM u`).pipe(Effect.map(Arr.head))
      },
      passwordHash: (id) =>
        orStorageError(sql<{ password_hash: string | null }>`SELECT password_hash FROM users WHERE id = ${id}`).pipe(
          Effect.map((rows) => rows[0]?.password_hash ?? null)
        ),
      setPasswordHash: (id, hash) =>
        orStorageError(sql`UPDATE users SET password_hash = ${hash} WHERE id = ${id}`).pipe(Effect.asVoid)
    })
  })
)

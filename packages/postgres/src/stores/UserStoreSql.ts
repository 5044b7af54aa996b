import { SqlClient, type Statement } from "@effect/sql"
import { type User, UserStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

/** The user columns, as selected from `users` aliased `u`. */
export const userColumns = `u.id, u.uuid, u.distinct_id, u.first_name, u.last_name, u.email, u.is_email_verified,
  u.hedgehog_config, u.role_at_organization, u.organization_id, u.current_project_id, u.is_active`

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
            INSERT INTO users (organization_id, email, first_name, current_project_id)
            VALUES (${input.organization_id}, ${input.email}, ${input.first_name}, ${input.current_project_id})
            RETURNING *
          ) SELECT ${columns} FROM u`).pipe(Effect.map((rows) => rows[0]!)),
      get: (id) => one(sql`u.id = ${id}`),
      getMany: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<User>`SELECT ${columns} FROM users u WHERE u.id = ANY(${ids}::int[]) ORDER BY u.id`),
      findByEmail: (email) => one(sql`u.email = ${email}`),
      first: orStorageError(sql<User>`SELECT ${columns} FROM users u ORDER BY u.id LIMIT 1`).pipe(Effect.map(Arr.head))
    })
  })
)

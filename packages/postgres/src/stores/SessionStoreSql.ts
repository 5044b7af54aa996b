import { SqlClient } from "@effect/sql"
import { SessionStore, type User } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { orStorageError } from "./sqlErrors.js"
import { userColumns } from "./UserStoreSql.js"

export const SessionStoreSql = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return SessionStore.of({
      create: ({ digest, expires_at, user_id }) =>
        orStorageError(
          sql`WITH expired AS (DELETE FROM sessions WHERE expires_at <= now())
            INSERT INTO sessions (digest, user_id, expires_at) VALUES (${digest}, ${user_id}, ${expires_at})`
        ).pipe(Effect.asVoid),
      find: (digest) =>
        orStorageError(sql<User & { session_expires_at: Date }>`
          SELECT ${sql.literal(userColumns)}, s.expires_at AS session_expires_at
          FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.digest = ${digest} AND u.is_active`).pipe(
          Effect.map(Arr.head),
          Effect.map(Option.map(({ session_expires_at, ...user }) => ({ user, expires_at: session_expires_at })))
        ),
      remove: (digest) => orStorageError(sql`DELETE FROM sessions WHERE digest = ${digest}`).pipe(Effect.asVoid),
      removeForUser: (userId) => orStorageError(sql`DELETE FROM sessions WHERE user_id = ${userId}`).pipe(Effect.asVoid)
    })
  })
)

import { SqlClient } from "@effect/sql"
import { DEFAULT_SETTINGS, type Project, ProjectStore } from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

const SETTINGS = Object.keys(DEFAULT_SETTINGS) as Array<keyof typeof DEFAULT_SETTINGS>

export const ProjectStoreSql = Layer.effect(
  ProjectStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `id, uuid, organization_id AS organization, id AS project_id, api_token, name, timezone, is_demo, ingested_event,
      ${SETTINGS.join(", ")}, test_account_filters, created_at, updated_at`
    )
    return ProjectStore.of({
      create: (input) =>
        orStorageError(sql<Project>`
          INSERT INTO projects (organization_id, name, timezone, api_token)
          VALUES (${input.organization}, ${input.name}, ${input.timezone}, ${input.api_token})
          RETURNING ${columns}`).pipe(Effect.map((rows) => rows[0]!)),
      get: (id) =>
        orStorageError(sql<Project>`SELECT ${columns} FROM projects WHERE id = ${id}`).pipe(Effect.map(Arr.head)),
      findByApiToken: (token) =>
        orStorageError(sql<Project>`SELECT ${columns} FROM projects WHERE api_token = ${token}`).pipe(
          Effect.map(Arr.head)
        ),
      markIngested: (id) =>
        orStorageError(sql`UPDATE projects SET ingested_event = true WHERE id = ${id} AND NOT ingested_event`).pipe(
          Effect.asVoid
        ),
      list: ({ ids, limit, offset, organization }) => {
        const where =
          ids === null
            ? sql`organization_id = ${organization}`
            : ids.length === 0
              ? sql`false`
              : sql`organization_id = ${organization} AND ${sql.in("id", ids)}`
        return orStorageError(sql<Project & { total: number }>`
          SELECT ${columns}, count(*) OVER ()::int AS total FROM projects WHERE ${where}
          ORDER BY id LIMIT ${limit} OFFSET ${offset}`).pipe(
          Effect.flatMap((rows) =>
            rows.length > 0 || offset === 0
              ? Effect.succeed({ count: rows[0]?.total ?? 0, rows })
              : // Past the last page the window count is not there to read.
                orStorageError(sql<{ total: number }>`SELECT count(*)::int AS total FROM projects WHERE ${where}`).pipe(
                  Effect.map((r) => ({ count: r[0]!.total, rows }))
                )
          ),
          Effect.map(({ count, rows }) => ({ count, results: rows.map(({ total: _, ...project }) => project) }))
        )
      },
      update: (id, patch) =>
        orStorageError(sql<Project>`
          UPDATE projects SET
            name = COALESCE(${patch.name ?? null}, name),
            timezone = COALESCE(${patch.timezone ?? null}, timezone),
            api_token = COALESCE(${patch.api_token ?? null}, api_token),
            test_account_filters = COALESCE(${patch.test_account_filters === undefined ? null : JSON.stringify(patch.test_account_filters)}::jsonb, test_account_filters),
            ${sql.csv(SETTINGS.map((name) => sql`${sql(name)} = COALESCE(${patch[name] ?? null}::boolean, ${sql(name)})`))},
            updated_at = now()
          WHERE id = ${id} RETURNING ${columns}`).pipe(Effect.map(Arr.head))
    })
  })
)

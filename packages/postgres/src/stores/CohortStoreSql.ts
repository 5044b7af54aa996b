import { SqlClient, type Statement } from "@effect/sql"
import { type PropertyGroup } from "@zed/core/domain"
import { Cohort, CohortInsert, CohortStore, type NewCohort, type StoredCohort } from "@zed/core/storage"
import { Array as Arr, Effect, Layer, Option } from "effect"
import { personColumns, type Row as PersonRow, toPerson } from "./PersonStoreSql.js"
import { orStorageError } from "./sqlErrors.js"

type Row = Omit<StoredCohort, "properties"> & { readonly filters: { readonly properties?: PropertyGroup } | null }

// The columns are the entity's fields. Properties are kept as PostHog keeps cohorts,
// `filters: {properties: <group>}`; a static cohort's count is its members', a dynamic one's that of
// its calculated membership (cohort_members at the cohort's calculated_version).
const column = (field: string) => (field === "properties" ? "filters" : field)
const selected = (field: string) =>
  field === "count"
    ? `CASE WHEN c.is_static THEN (SELECT count(*)::int FROM cohort_people m WHERE m.cohort_id = c.id)
      WHEN c.calculated_version IS NOT NULL THEN (SELECT count(*)::int FROM cohort_members m
        WHERE m.cohort_id = c.id AND m.version = c.calculated_version) END AS count`
    : `c.${column(field)}`

const COLUMNS = Object.keys(Cohort.fields).map(selected).join(", ")
const INSERTED = Object.keys(CohortInsert.fields)

const toCohort = ({ filters, ...row }: Row): StoredCohort => ({ ...row, properties: filters?.properties ?? null })

export const CohortStoreSql = Layer.effect(
  CohortStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    const value = (field: string, v: unknown): Statement.Fragment =>
      field === "properties" ? sql`${v === null ? null : JSON.stringify({ properties: v })}::jsonb` : sql`${v}`
    return CohortStore.of({
      list: (projectId, page) =>
        orStorageError(
          Effect.all([
            sql<Row>`SELECT ${columns} FROM cohorts c WHERE c.project_id = ${projectId} AND NOT c.deleted
            ORDER BY c.created_at DESC, c.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
            sql<{
              total: number
            }>`SELECT count(*)::int AS total FROM cohorts WHERE project_id = ${projectId} AND NOT deleted`
          ])
        ).pipe(Effect.map(([rows, [count]]) => ({ count: count!.total, results: rows.map(toCohort) }))),
      get: (projectId, id) =>
        orStorageError(
          sql<Row>`SELECT ${columns} FROM cohorts c WHERE c.project_id = ${projectId} AND c.id = ${id} AND NOT c.deleted`
        ).pipe(Effect.map((rows) => Option.map(Arr.head(rows), toCohort))),
      create: (projectId, cohort) =>
        orStorageError(sql<Row>`
          WITH c AS (
            INSERT INTO cohorts (project_id, ${sql.literal(INSERTED.map(column).join(", "))})
            VALUES (${projectId}, ${sql.csv(INSERTED.map((field) => value(field, cohort[field as keyof NewCohort])))})
            RETURNING *
          ) SELECT ${columns} FROM c`).pipe(Effect.map((rows) => toCohort(rows[0]!))),
      update: (projectId, id, patch) => {
        const sets = Object.entries(patch)
          .filter(([, v]) => v !== undefined)
          .map(([field, v]) => sql`${sql(column(field))} = ${value(field, v)}`)
        return orStorageError(sql<Row>`
          WITH c AS (
            UPDATE cohorts SET ${sql.csv([...sets, sql`version = version + 1`, sql`updated_at = now()`])}
            WHERE project_id = ${projectId} AND id = ${id} AND NOT deleted
            RETURNING *
          ) SELECT ${columns} FROM c`).pipe(Effect.map((rows) => Option.map(Arr.head(rows), toCohort)))
      },
      all: (projectId) =>
        orStorageError(
          sql<Row>`SELECT ${columns} FROM cohorts c WHERE c.project_id = ${projectId} AND NOT c.deleted ORDER BY c.id`
        ).pipe(Effect.map((rows) => rows.map(toCohort))),
      addPersons: (projectId, cohortId, uuids) =>
        uuids.length === 0
          ? Effect.succeed(0)
          : orStorageError(sql<{ added: number }>`
              WITH added AS (
                INSERT INTO cohort_people (cohort_id, person_id)
                SELECT ${cohortId}, p.id FROM unnest(${uuids}::uuid[]) AS wanted(uuid)
                JOIN persons p ON p.project_id = ${projectId} AND p.uuid = wanted.uuid
                ON CONFLICT DO NOTHING RETURNING 1
              ) SELECT count(*)::int AS added FROM added`).pipe(Effect.map((rows) => rows[0]!.added)),
      calculatedPersons: (projectId, cohortId, page) =>
        orStorageError(
          Effect.all([
            sql<PersonRow>`SELECT ${sql.literal(personColumns)} FROM cohorts c
            JOIN cohort_members m ON m.cohort_id = c.id AND m.version = c.calculated_version
            JOIN persons p ON p.id = m.person_id
            WHERE c.id = ${cohortId} AND c.project_id = ${projectId}
            ORDER BY p.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
            sql<{ total: number }>`SELECT count(*)::int AS total FROM cohorts c
            JOIN cohort_members m ON m.cohort_id = c.id AND m.version = c.calculated_version
            WHERE c.id = ${cohortId} AND c.project_id = ${projectId}`
          ])
        ).pipe(Effect.map(([rows, [count]]) => ({ count: count!.total, results: rows.map(toPerson) }))),
      due: (before, stuckBefore, limit) =>
        orStorageError(sql<{ project_id: number; id: number }>`
          SELECT project_id, id FROM cohorts
          WHERE NOT deleted AND NOT is_static AND (last_calculation IS NULL OR last_calculation < ${before})
            AND (NOT is_calculating OR calculation_started_at < ${stuckBefore})
          ORDER BY last_calculation NULLS FIRST, id LIMIT ${limit}`),
      startCalculation: (projectId, cohortId, stuckBefore) =>
        orStorageError(sql<{ version: number }>`
          UPDATE cohorts SET is_calculating = true, calculation_started_at = now()
          WHERE project_id = ${projectId} AND id = ${cohortId} AND NOT deleted
            AND (NOT is_calculating OR calculation_started_at < ${stuckBefore})
          RETURNING coalesce(calculated_version, 0) + 1 AS version`).pipe(
          Effect.map(Arr.head),
          // An abandoned calculation may have left rows under the same version.
          Effect.tap(
            Option.match({
              onNone: () => Effect.void,
              onSome: ({ version }) =>
                orStorageError(sql`DELETE FROM cohort_members WHERE cohort_id = ${cohortId} AND version = ${version}`)
            })
          ),
          Effect.map(Option.map((r) => r.version))
        ),
      addCalculated: (cohortId, version, personIds) =>
        personIds.length === 0
          ? Effect.void
          : orStorageError(sql`
              INSERT INTO cohort_members (cohort_id, version, person_id)
              SELECT ${cohortId}, ${version}, id FROM unnest(${personIds}::bigint[]) AS p(id)
              ON CONFLICT DO NOTHING`).pipe(Effect.asVoid),
      finishCalculation: (projectId, cohortId, version, at) =>
        orStorageError(
          sql.withTransaction(
            Effect.zipRight(
              sql`UPDATE cohorts SET calculated_version = ${version}, last_calculation = ${at},
                is_calculating = false, errors_calculating = 0
                WHERE project_id = ${projectId} AND id = ${cohortId}`,
              sql`DELETE FROM cohort_members WHERE cohort_id = ${cohortId} AND version <> ${version}`
            )
          )
        ).pipe(Effect.asVoid),
      failCalculation: (projectId, cohortId, version) =>
        orStorageError(
          Effect.zipRight(
            sql`UPDATE cohorts SET is_calculating = false, errors_calculating = errors_calculating + 1
              WHERE project_id = ${projectId} AND id = ${cohortId}`,
            sql`DELETE FROM cohort_members m USING cohorts c WHERE m.cohort_id = ${cohortId} AND c.id = m.cohort_id
              AND m.version = ${version} AND c.calculated_version IS DISTINCT FROM ${version}`
          )
        ).pipe(Effect.asVoid),
      persons: (projectId, cohortId, page) =>
        orStorageError(
          Effect.all([
            sql<PersonRow>`SELECT ${sql.literal(personColumns)} FROM cohort_people m JOIN persons p ON p.id = m.person_id
            WHERE m.cohort_id = ${cohortId} AND p.project_id = ${projectId}
            ORDER BY p.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
            sql<{
              total: number
            }>`SELECT count(*)::int AS total FROM cohort_people m JOIN persons p ON p.id = m.person_id
            WHERE m.cohort_id = ${cohortId} AND p.project_id = ${projectId}`
          ])
        ).pipe(Effect.map(([rows, [count]]) => ({ count: count!.total, results: rows.map(toPerson) })))
    })
  })
)

import { SqlClient } from "@effect/sql"
import { type Person, type PersonChanges, PersonStore } from "@zed/core/storage"
import { Effect, Layer, Option } from "effect"
import { escapeLike, propertyCondition } from "./propertyCondition.js"
import { orStorageError } from "./sqlErrors.js"

export type Row = Omit<Person, "distinct_ids"> & { readonly distinct_ids: ReadonlyArray<string> | null }

/** A person's columns with their distinct ids, selected from `persons` aliased `p`. */
export const personColumns = `p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version,
  (SELECT json_agg(d.distinct_id ORDER BY d.distinct_id) FROM person_distinct_ids d WHERE d.person_id = p.id) AS distinct_ids`

export const toPerson = (row: Row): Person => ({ ...row, distinct_ids: row.distinct_ids ?? [] })

export const PersonStoreSql = Layer.effect(
  PersonStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(personColumns)

    const condition = propertyCondition(sql, "p.properties")

    // New rows only: a distinct id claimed by a concurrent writer fails the insert (and the batch is
    // retried against what that writer committed) instead of being taken from it.
    const claimIds = (projectId: number, rows: ReadonlyArray<{ distinct_id: string; person_id: number }>) =>
      rows.length === 0
        ? Effect.void
        : orStorageError(sql`
            INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
            SELECT ${projectId}, distinct_id, person_id FROM json_to_recordset(${JSON.stringify(rows)}::json)
              AS r(distinct_id text, person_id bigint)`)

    // Rows of loaded (so locked) persons, in distinct id order so concurrent writers lock alike.
    const moveIds = (projectId: number, rows: ReadonlyArray<{ distinct_id: string; person_id: number }>) =>
      rows.length === 0
        ? Effect.void
        : orStorageError(sql`
            UPDATE person_distinct_ids d SET person_id = r.person_id, version = d.version + 1
            FROM (SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(distinct_id text, person_id bigint)
              ORDER BY distinct_id) r
            WHERE d.project_id = ${projectId} AND d.distinct_id = r.distinct_id`)

    return PersonStore.of({
      load: (projectId, distinctIds) =>
        distinctIds.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<Omit<Row, "distinct_ids"> & { distinct_id: string }>`
              SELECT p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version, d.distinct_id
              FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
              WHERE p.id IN (
                SELECT w.person_id FROM unnest(${distinctIds}::text[]) AS wanted(distinct_id)
                JOIN person_distinct_ids w ON w.project_id = ${projectId} AND w.distinct_id = wanted.distinct_id
              )
              ORDER BY p.id, d.distinct_id
              FOR UPDATE OF p`).pipe(
              Effect.map((rows) => {
                const persons = new Map<number, Person & { distinct_ids: Array<string> }>()
                for (const { distinct_id, ...person } of rows) {
                  const found = persons.get(person.id) ?? { ...person, distinct_ids: [] }
                  found.distinct_ids.push(distinct_id)
                  persons.set(person.id, found)
                }
                return [...persons.values()]
              })
            ),
      save: (projectId, changes) =>
        Effect.gen(function* () {
          const ids = new Map<string, number>()
          if (changes.created.length > 0) {
            const inserted = yield* orStorageError(sql<{ id: number; uuid: string }>`
              INSERT INTO persons (project_id, uuid, properties, is_identified, created_at, version)
              SELECT ${projectId}, uuid, properties, is_identified, created_at, version
              FROM json_to_recordset(${JSON.stringify(
                changes.created.map(({ uuid, properties, is_identified, created_at, version }) => ({
                  uuid,
                  properties,
                  is_identified,
                  created_at,
                  version
                }))
              )}::json)
                AS r(uuid uuid, properties jsonb, is_identified boolean, created_at timestamptz, version bigint)
              RETURNING id, uuid`)
            for (const row of inserted) ids.set(row.uuid, row.id)
          }
          if (changes.updated.length > 0) {
            yield* orStorageError(sql`
              UPDATE persons p SET properties = r.properties, is_identified = r.is_identified, created_at = r.created_at, version = r.version
              FROM json_to_recordset(${JSON.stringify(
                changes.updated.map(({ id, properties, is_identified, created_at, version }) => ({
                  id,
                  properties,
                  is_identified,
                  created_at,
                  version
                }))
              )}::json)
                AS r(id bigint, properties jsonb, is_identified boolean, created_at timestamptz, version bigint)
              WHERE p.id = r.id AND p.project_id = ${projectId}`)
          }
          const rows = (list: PersonChanges["claimed"]) =>
            list.map(({ distinct_id, person }) => ({ distinct_id, person_id: person.id ?? ids.get(person.uuid)! }))
          yield* claimIds(projectId, rows(changes.claimed))
          yield* moveIds(projectId, rows(changes.moved))
          if (changes.deleted.length > 0) {
            const merges = JSON.stringify(
              changes.deleted.map((d) => ({ from_id: d.id, into_id: d.into.id ?? ids.get(d.into.uuid)! }))
            )
            // Experience continuity follows the person: hash keys move to the survivor (its own win).
            yield* orStorageError(sql`
              INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
              SELECT o.project_id, m.into_id, o.feature_flag_key, o.hash_key
              FROM feature_flag_hash_key_overrides o
              JOIN json_to_recordset(${merges}::json) AS m(from_id bigint, into_id bigint) ON o.person_id = m.from_id
              ON CONFLICT DO NOTHING`)
            yield* orStorageError(sql`DELETE FROM persons WHERE project_id = ${projectId}
              AND id IN (SELECT json_array_elements_text(${JSON.stringify(changes.deleted.map((d) => d.id))}::json)::bigint)`)
          }
          return ids
        }),
      list: (projectId, query) => {
        const where = sql.and([
          sql`p.project_id = ${projectId}`,
          ...(query.distinct_id === undefined
            ? []
            : [
                sql`EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id AND d.distinct_id = ${query.distinct_id})`
              ]),
          ...(query.email === undefined ? [] : [sql`p.properties ->> 'email' = ${query.email}`]),
          ...(query.distinct_ids === undefined
            ? []
            : [
                sql`p.id IN (SELECT d.person_id FROM person_distinct_ids d
                  WHERE d.project_id = ${projectId} AND d.distinct_id IN (SELECT unnest(${query.distinct_ids}::text[])))`
              ]),
          ...(query.emails === undefined
            ? []
            : [sql`p.properties ->> 'email' IN (SELECT unnest(${query.emails}::text[]))`]),
          ...(query.beyond === undefined
            ? []
            : [sql`(p.created_at, p.id) < (${query.beyond.created_at}, ${query.beyond.id})`]),
          ...(query.search === undefined
            ? []
            : [
                sql`(
            EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.person_id = p.id AND lower(d.distinct_id) = lower(${query.search}))
            OR p.properties ->> 'email' ILIKE ${`%${escapeLike(query.search)}%`}
            OR p.properties ->> 'name' ILIKE ${`%${escapeLike(query.search)}%`})`
              ]),
          ...query.properties.map(condition)
        ])
        return orStorageError(sql<Row & { total: number }>`
          SELECT ${columns}, count(*) OVER ()::int AS total FROM persons p WHERE ${where}
          ORDER BY p.created_at DESC, p.id DESC LIMIT ${query.limit} OFFSET ${query.offset}`).pipe(
          Effect.flatMap((rows) =>
            rows.length > 0 || query.offset === 0
              ? Effect.succeed({ count: rows[0]?.total ?? 0, rows })
              : orStorageError(
                  sql<{ total: number }>`SELECT count(*)::int AS total FROM persons p WHERE ${where}`
                ).pipe(Effect.map((r) => ({ count: r[0]!.total, rows })))
          ),
          Effect.map(({ count, rows }) => ({ count, results: rows.map(({ total: _, ...row }) => toPerson(row)) }))
        )
      },
      get: (projectId, ref) =>
        orStorageError(
          sql<Row>`SELECT ${columns} FROM persons p WHERE p.project_id = ${projectId} AND ${
            "id" in ref ? sql`p.id = ${ref.id}` : sql`p.uuid = ${ref.uuid}`
          }`
        ).pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toPerson))),
      getMany: (projectId, uuids) =>
        uuids.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<Row>`SELECT ${columns} FROM persons p
              WHERE p.project_id = ${projectId} AND p.uuid IN (SELECT unnest(${uuids}::uuid[]))`).pipe(
              Effect.map((rows) => rows.map(toPerson))
            ),
      remove: (projectId, personId) =>
        orStorageError(sql`DELETE FROM persons WHERE project_id = ${projectId} AND id = ${personId}`).pipe(
          Effect.asVoid
        ),
      // Ties in code-point order (COLLATE "C"), as the in-memory store sorts.
      values: (projectId, key, search) =>
        orStorageError(sql<{ value: unknown; count: number }>`
          SELECT value, count FROM (
            SELECT p.properties -> ${key} AS value, count(*)::int AS count FROM persons p
            WHERE p.project_id = ${projectId} AND p.properties ? ${key}
            ${search === undefined ? sql`` : sql`AND (p.properties ->> ${key}) ILIKE ${`%${escapeLike(search)}%`}`}
            GROUP BY 1
          ) counted
          ORDER BY count DESC, (value #>> '{}') COLLATE "C" LIMIT 100`)
    })
  })
)

import { SqlClient } from "@effect/sql"
import { FlagInputs } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

interface Row {
  readonly kind: "person" | "group" | "cohort" | "override"
  readonly a: string | null
  readonly b: Record<string, unknown> | null
  readonly c: string | null
}

/**
 * Everything flag evaluation reads about a person, in one statement: the person's properties, the
 * requested groups', static and calculated cohort memberships, and hash key overrides (writing the missing ones
 * for experience continuity first, in a data-modifying CTE whose rows the SELECT reads back).
 */
export const FlagInputsSql = Layer.effect(
  FlagInputs,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return FlagInputs.of({
      load: (projectId, query) => {
        const anon = query.continuity?.anonDistinctId ?? null
        const keys = query.continuity?.flagKeys ?? []
        return orStorageError(sql<Row>`
          WITH me AS (
            SELECT p.id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
            WHERE d.project_id = ${projectId} AND d.distinct_id = ${query.distinctId}
          ), written AS (
            INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
            SELECT ${projectId}, d.person_id, k.key, ${anon}::text
            FROM person_distinct_ids d, unnest(${keys}::text[]) AS k(key)
            WHERE ${anon}::text IS NOT NULL AND d.project_id = ${projectId} AND d.distinct_id IN (${query.distinctId}, ${anon}::text)
            ON CONFLICT DO NOTHING
            RETURNING person_id, feature_flag_key, hash_key
          )
          SELECT 'person' AS kind, NULL::text AS a, me.properties AS b, NULL::text AS c FROM me
          UNION ALL
          SELECT 'group', g.group_type_index::text, g.properties, g.group_key
          FROM unnest(${query.groups.map((g) => g.index)}::int[], ${query.groups.map((g) => g.key)}::text[]) AS w(i, k)
          JOIN groups g ON g.project_id = ${projectId} AND g.group_type_index = w.i AND g.group_key = w.k
          UNION ALL
          SELECT 'cohort', m.cohort_id::text, NULL, NULL FROM cohort_people m JOIN me ON m.person_id = me.id
          WHERE m.cohort_id = ANY(${query.staticCohortIds}::int[])
          UNION ALL
          SELECT 'cohort', m.cohort_id::text, NULL, NULL FROM cohorts c
          JOIN cohort_members m ON m.cohort_id = c.id AND m.version = c.calculated_version JOIN me ON m.person_id = me.id
          WHERE c.id = ANY(${query.staticCohortIds}::int[])
          UNION ALL
          SELECT 'override', o.feature_flag_key, NULL, o.hash_key FROM feature_flag_hash_key_overrides o JOIN me ON o.person_id = me.id
          WHERE o.project_id = ${projectId}
          UNION ALL
          SELECT 'override', w.feature_flag_key, NULL, w.hash_key FROM written w JOIN me ON w.person_id = me.id`).pipe(
          Effect.map((rows) => {
            let personProperties: Record<string, unknown> | null = null
            const groupProperties = new Map<number, Map<string, Readonly<Record<string, unknown>>>>()
            const staticCohorts = new Set<number>()
            const hashKeyOverrides: Record<string, string> = {}
            for (const row of rows) {
              if (row.kind === "person") personProperties = row.b ?? {}
              else if (row.kind === "cohort") staticCohorts.add(Number(row.a))
              else if (row.kind === "override") hashKeyOverrides[row.a!] = row.c!
              else {
                const byKey = groupProperties.get(Number(row.a)) ?? new Map()
                byKey.set(row.c!, row.b ?? {})
                groupProperties.set(Number(row.a), byKey)
              }
            }
            return { personProperties, groupProperties, staticCohorts, hashKeyOverrides }
          })
        )
      },
      persons: (projectId, distinctIds) =>
        orStorageError(sql<{ readonly distinct_id: string; readonly properties: Record<string, unknown> }>`
          SELECT d.distinct_id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
          WHERE d.project_id = ${projectId} AND d.distinct_id = ANY(${distinctIds}::text[])`).pipe(
          Effect.map((rows) => new Map(rows.map((row) => [row.distinct_id, row.properties])))
        )
    })
  })
)

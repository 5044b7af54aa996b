import { SqlClient } from "@effect/sql"
import { type DepthCount, HeatmapStore, type HeatmapSelection, type PointCount } from "@zed/core/storage"
import { Effect, Layer } from "effect"
import { orStorageError } from "./sqlErrors.js"

// The same rounding as relativeX and depthBucket (in exact numeric arithmetic), so that every
// store puts a point in the same place.

/** Rows of one multi-row insert: 14 parameters each, under PostgreSQL's 65,535. */
const BATCH = 2000

export const HeatmapStoreSql = Layer.effect(
  HeatmapStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const where = (projectId: number, s: HeatmapSelection) =>
      sql.and([
        sql`project_id = ${projectId}`,
        sql`type = ${s.type}`,
        sql`timestamp >= ${s.from}`,
        sql`timestamp < ${s.to}`,
        s.urls.length === 0 ? sql`false` : sql`current_url IN ${sql.in(s.urls)}`,
        ...(s.viewportWidthMin === undefined ? [] : [sql`viewport_width >= ${s.viewportWidthMin}`]),
        ...(s.viewportWidthMax === undefined ? [] : [sql`viewport_width <= ${s.viewportWidthMax}`])
      ])
    const counted = (s: HeatmapSelection) =>
      sql.literal(s.aggregation === "total_count" ? "count(*)::int" : "count(DISTINCT distinct_id)::int")

    return HeatmapStore.of({
      insert: (projectId, points) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(points.length / BATCH) }, (_, i) => points.slice(i * BATCH, (i + 1) * BATCH)),
          (batch) =>
            orStorageError(sql`INSERT INTO heatmaps ${sql.insert(batch.map((p) => ({ ...p, project_id: projectId })))}
            ON CONFLICT (project_id, event_uuid, ordinal) DO NOTHING`),
          { discard: true }
        ),
      urls: (projectId, range, limit) =>
        orStorageError(sql<{ current_url: string }>`SELECT current_url FROM heatmaps
          WHERE project_id = ${projectId} AND type = ${range.type} AND timestamp >= ${range.from} AND timestamp < ${range.to}
          GROUP BY current_url ORDER BY current_url COLLATE "C" LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map((r) => r.current_url))
        ),
      points: (projectId, s) =>
        orStorageError(sql<PointCount>`SELECT pointer_target_fixed, pointer_relative_x, pointer_y, ${counted(s)} AS count FROM (
            SELECT distinct_id, pointer_target_fixed,
              (floor((200 * x + viewport_width)::numeric / (2 * viewport_width)) / 100)::float8 AS pointer_relative_x,
              y * scale_factor AS pointer_y
            FROM heatmaps WHERE ${where(projectId, s)} AND viewport_width > 0) p
          GROUP BY pointer_target_fixed, pointer_relative_x, pointer_y
          ORDER BY count DESC, pointer_target_fixed, pointer_relative_x, pointer_y LIMIT ${s.limit}`),
      depths: (projectId, s) =>
        orStorageError(sql<DepthCount>`SELECT bucket, ${counted(s)} AS count FROM (
            SELECT distinct_id, (floor(((y + viewport_height) * scale_factor)::numeric / 100) * 100)::int AS bucket
            FROM heatmaps WHERE ${where(projectId, s)}) d
          GROUP BY bucket ORDER BY bucket LIMIT ${s.limit}`)
    })
  })
)

import { SqlClient, type Statement } from "@effect/sql"
import {
  type ActivityEntry,
  Dashboard,
  DashboardInsert,
  type DashboardTile,
  Insight,
  InsightInsert,
  InsightStore,
  type SharingConfiguration,
  type SharingTarget,
  type StoredDashboard,
  type StoredInsight,
  uuidv7
} from "@zed/core/storage"
import { Array as Arr, Effect, Layer } from "effect"
import { entityColumns } from "./entityColumns.js"
import { patchSets } from "./patchSets.js"
import { orStorageError } from "./sqlErrors.js"

const TILE_JSON = new Set(["layouts"])
const TILE_COLUMNS = "id, dashboard_id, insight_id, text, layouts, color, deleted"

export const InsightStoreSql = Layer.effect(
  InsightStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const insights = entityColumns(sql, Insight, InsightInsert)
    const dashboards = entityColumns(sql, Dashboard, DashboardInsert)
    const tileColumns = sql.literal(TILE_COLUMNS)
    const json = (v: unknown) => sql`${JSON.stringify(v)}::jsonb`
    const targetColumn = (target: SharingTarget) =>
      sql.literal(target.kind === "insight" ? "insight_id" : "dashboard_id")
    const counted = <A extends object>(rows: Statement.Statement<A>, total: Statement.Statement<{ total: number }>) =>
      orStorageError(Effect.all([rows, total])).pipe(
        Effect.map(([results, [count]]) => ({ count: count!.total, results }))
      )

    return InsightStore.of({
      list: (projectId, query) => {
        const where = sql.and([
          sql`project_id = ${projectId}`,
          sql`NOT deleted`,
          ...(query.created_by === undefined ? [] : [sql`created_by = ${query.created_by}`]),
          ...(query.short_id === undefined ? [] : [sql`short_id = ${query.short_id}`]),
          ...(query.favorited === undefined ? [] : [sql`favorited = ${query.favorited}`]),
          ...(query.saved === undefined
            ? []
            : query.saved
              ? [
                  sql`(saved OR EXISTS (SELECT 1 FROM dashboard_tiles t WHERE t.insight_id = insights.id AND NOT t.deleted))`
                ]
              : [sql`NOT saved`]),
          ...(query.search === undefined
            ? []
            : [
                sql`(
            name ILIKE ${`%${query.search}%`} OR derived_name ILIKE ${`%${query.search}%`} OR description ILIKE ${`%${query.search}%`}
            OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(tags) tag WHERE tag ILIKE ${`%${query.search}%`}))`
              ])
        ])
        return counted(
          sql<StoredInsight>`SELECT ${insights.columns} FROM insights WHERE ${where} ORDER BY id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM insights WHERE ${where}`
        )
      },
      get: (projectId, id, includeDeleted = false) =>
        orStorageError(sql<StoredInsight>`SELECT ${insights.columns} FROM insights
          WHERE project_id = ${projectId} AND id = ${id} ${includeDeleted ? sql`` : sql`AND NOT deleted`}`).pipe(
          Effect.map(Arr.head)
        ),
      create: (projectId, i) =>
        orStorageError(sql<StoredInsight>`
          INSERT INTO insights (project_id, ${insights.inserted}, last_modified_by)
          VALUES (${projectId}, ${insights.values(i)}, ${i.created_by})
          RETURNING ${insights.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      update: (projectId, id, { material, last_modified_by, ...patch }) => {
        const modified = material ? [sql`last_modified_at = now()`, sql`last_modified_by = ${last_modified_by}`] : []
        return orStorageError(sql<StoredInsight>`
          UPDATE insights SET ${sql.csv([...insights.sets(patch), ...modified, sql`updated_at = now()`])}
          WHERE project_id = ${projectId} AND id = ${id}
          RETURNING ${insights.columns}`).pipe(Effect.map(Arr.head))
      },
      tiles: (insightIds) =>
        insightIds.length === 0
          ? Effect.succeed([])
          : orStorageError(
              sql<DashboardTile>`SELECT ${tileColumns} FROM dashboard_tiles WHERE ${sql.in("insight_id", insightIds)} ORDER BY id`
            ),
      dashboardTiles: (dashboardId) =>
        orStorageError(
          sql<DashboardTile>`SELECT ${tileColumns} FROM dashboard_tiles WHERE dashboard_id = ${dashboardId} ORDER BY id`
        ),
      placeOn: (insightId, dashboardIds) =>
        orStorageError(
          Effect.gen(function* () {
            const onThem = dashboardIds.length === 0 ? sql`false` : sql.in("dashboard_id", dashboardIds)
            yield* sql`UPDATE dashboard_tiles SET deleted = NOT ${onThem} WHERE insight_id = ${insightId}`
            if (dashboardIds.length === 0) return
            yield* sql`INSERT INTO dashboard_tiles (dashboard_id, insight_id)
            VALUES ${sql.csv(dashboardIds.map((d) => sql`(${d}, ${insightId})`))}
            ON CONFLICT (insight_id, dashboard_id) DO NOTHING`
          })
        ),
      markTiles: (insightId, deleted) =>
        Effect.asVoid(
          orStorageError(sql`UPDATE dashboard_tiles SET deleted = ${deleted} WHERE insight_id = ${insightId}`)
        ),
      addTile: (dashboardId, t) =>
        orStorageError(sql<DashboardTile>`
          INSERT INTO dashboard_tiles (dashboard_id, insight_id, text, layouts, color)
          VALUES (${dashboardId}, ${t.insight_id}, ${t.text}, ${json(t.layouts)}, ${t.color})
          RETURNING ${tileColumns}`).pipe(Effect.map((rows) => rows[0]!)),
      updateTile: (dashboardId, tileId, patch) => {
        const sets = patchSets(sql, patch, TILE_JSON)
        const where = sql`dashboard_id = ${dashboardId} AND id = ${tileId}`
        return orStorageError(
          sets.length === 0
            ? sql<DashboardTile>`SELECT ${tileColumns} FROM dashboard_tiles WHERE ${where}`
            : sql<DashboardTile>`UPDATE dashboard_tiles SET ${sql.csv(sets)} WHERE ${where} RETURNING ${tileColumns}`
        ).pipe(Effect.map(Arr.head))
      },
      createDashboard: (projectId, d) =>
        orStorageError(sql<StoredDashboard>`
          INSERT INTO dashboards (project_id, ${dashboards.inserted}) VALUES (${projectId}, ${dashboards.values(d)})
          RETURNING ${dashboards.columns}`).pipe(Effect.map((rows) => rows[0]!)),
      getDashboards: (projectId, ids, includeDeleted = false) =>
        ids.length === 0
          ? Effect.succeed([])
          : orStorageError(sql<StoredDashboard>`SELECT ${dashboards.columns} FROM dashboards
              WHERE project_id = ${projectId} AND ${sql.in("id", ids)} ${includeDeleted ? sql`` : sql`AND NOT deleted`}
              ORDER BY id`),
      updateDashboard: (projectId, id, patch) => {
        const sets = dashboards.sets(patch)
        return sets.length === 0
          ? orStorageError(sql<StoredDashboard>`SELECT ${dashboards.columns} FROM dashboards
              WHERE project_id = ${projectId} AND id = ${id}`).pipe(Effect.map(Arr.head))
          : orStorageError(sql<StoredDashboard>`UPDATE dashboards SET ${sql.csv(sets)}
              WHERE project_id = ${projectId} AND id = ${id} RETURNING ${dashboards.columns}`).pipe(
              Effect.map(Arr.head)
            )
      },
      listDashboards: (projectId, page) =>
        counted(
          sql<StoredDashboard>`SELECT ${dashboards.columns} FROM dashboards WHERE project_id = ${projectId} AND NOT deleted
            ORDER BY pinned DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
          sql<{
            total: number
          }>`SELECT count(*)::int AS total FROM dashboards WHERE project_id = ${projectId} AND NOT deleted`
        ),
      sharing: (target) =>
        orStorageError(sql<SharingConfiguration>`SELECT enabled, access_token, created_at FROM sharing_configurations
          WHERE ${targetColumn(target)} = ${target.id}`).pipe(Effect.map(Arr.head)),
      saveSharing: (target, s) =>
        orStorageError(sql<SharingConfiguration>`
          INSERT INTO sharing_configurations (${targetColumn(target)}, enabled, access_token)
          VALUES (${target.id}, ${s.enabled}, ${s.access_token})
          ON CONFLICT (${targetColumn(target)}) DO UPDATE SET enabled = excluded.enabled, access_token = excluded.access_token
          RETURNING enabled, access_token, created_at`).pipe(Effect.map((rows) => rows[0]!)),
      shared: (accessToken) =>
        orStorageError(sql<SharingTarget & { project_id: number }>`
          SELECT coalesce(i.project_id, d.project_id) AS project_id,
            CASE WHEN s.insight_id IS NULL THEN 'dashboard' ELSE 'insight' END AS kind,
            coalesce(s.insight_id, s.dashboard_id) AS id
          FROM sharing_configurations s
          LEFT JOIN insights i ON i.id = s.insight_id
          LEFT JOIN dashboards d ON d.id = s.dashboard_id AND NOT d.deleted
          WHERE s.access_token = ${accessToken} AND s.enabled AND coalesce(i.project_id, d.project_id) IS NOT NULL`).pipe(
          Effect.map(Arr.head)
        ),
      logActivity: (projectId, a) =>
        Effect.asVoid(
          orStorageError(sql`
          INSERT INTO activity_log (id, project_id, scope, item_id, activity, user_id, detail)
          VALUES (${uuidv7()}, ${projectId}, ${a.scope}, ${a.item_id}, ${a.activity}, ${a.user_id}, ${json(a.detail)})`)
        ),
      activity: (projectId, scope, itemId, page) => {
        const where = sql`project_id = ${projectId} AND scope = ${scope} ${itemId === undefined ? sql`` : sql`AND item_id = ${itemId}`}`
        return counted(
          sql<ActivityEntry>`SELECT id::text, user_id, activity, scope, item_id, detail, created_at FROM activity_log
            WHERE ${where} ORDER BY seq DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
          sql<{ total: number }>`SELECT count(*)::int AS total FROM activity_log WHERE ${where}`
        )
      }
    })
  })
)

import { Effect } from "effect"
import type { HeatmapPoint } from "../../heatmaps/points.js"
import { depthBucket, HeatmapStore, type HeatmapRange, type HeatmapSelection, relativeX } from "../HeatmapStore.js"
import type { Journal } from "./journal.js"

type Owned = HeatmapPoint & { readonly project_id: number }

/** Counts per key: points, or the distinct ids among them. */
const tally = <K>(
  points: ReadonlyArray<Owned>,
  keyOf: (p: Owned) => K,
  aggregation: HeatmapSelection["aggregation"]
) => {
  const groups = new Map<string, { key: K; ids: Set<string>; count: number }>()
  for (const point of points) {
    const key = keyOf(point)
    const id = JSON.stringify(key)
    const group = groups.get(id) ?? { key, ids: new Set(), count: 0 }
    group.count++
    group.ids.add(point.distinct_id)
    groups.set(id, group)
  }
  return [...groups.values()].map((g) => ({ key: g.key, count: aggregation === "total_count" ? g.count : g.ids.size }))
}

export const makeMemoryHeatmaps = (journal: Journal) => {
  const points = new Map<string, Owned>()
  const inRange = (projectId: number, range: HeatmapRange) =>
    [...points.values()].filter(
      (p) => p.project_id === projectId && p.type === range.type && p.timestamp >= range.from && p.timestamp < range.to
    )
  const selected = (projectId: number, s: HeatmapSelection) =>
    inRange(projectId, s).filter(
      (p) =>
        s.urls.includes(p.current_url) &&
        (s.viewportWidthMin === undefined || p.viewport_width >= s.viewportWidthMin) &&
        (s.viewportWidthMax === undefined || p.viewport_width <= s.viewportWidthMax)
    )

  return HeatmapStore.of({
    insert: (projectId, added) =>
      Effect.sync(() => {
        for (const point of added) {
          const key = JSON.stringify([projectId, point.event_uuid, point.ordinal])
          if (!points.has(key)) journal.set(points, key, { ...point, project_id: projectId })
        }
      }),
    urls: (projectId, range, limit) =>
      Effect.sync(() => [...new Set(inRange(projectId, range).map((p) => p.current_url))].sort().slice(0, limit)),
    points: (projectId, s) =>
      Effect.sync(() =>
        tally(
          selected(projectId, s).filter((p) => p.viewport_width > 0),
          (p) => [p.pointer_target_fixed, relativeX(p.x, p.viewport_width), p.y * p.scale_factor] as const,
          s.aggregation
        )
          .map(({ count, key: [fixed, x, y] }) => ({
            pointer_target_fixed: fixed,
            pointer_relative_x: x,
            pointer_y: y,
            count
          }))
          .sort(
            (a, b) =>
              b.count - a.count ||
              Number(a.pointer_target_fixed) - Number(b.pointer_target_fixed) ||
              a.pointer_relative_x - b.pointer_relative_x ||
              a.pointer_y - b.pointer_y
          )
          .slice(0, s.limit)
      ),
    depths: (projectId, s) =>
      Effect.sync(() =>
        tally(selected(projectId, s), (p) => depthBucket(p.y, p.viewport_height, p.scale_factor), s.aggregation)
          .map(({ count, key }) => ({ bucket: key, count }))
          .sort((a, b) => a.bucket - b.bucket)
          .slice(0, s.limit)
      )
  })
}

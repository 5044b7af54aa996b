import { Context, type Effect } from "effect"
import type { HeatmapPoint } from "../heatmaps/points.js"
import type { StorageError } from "./StorageError.js"

// Heatmap points, aggregated for PostHog's toolbar: where on a page (scaled coordinates) and how
// far down it people clicked, moved or scrolled.

export interface HeatmapRange {
  readonly type: string
  /** Inclusive. */
  readonly from: Date
  /** Exclusive. */
  readonly to: Date
}

export interface HeatmapSelection extends HeatmapRange {
  readonly urls: ReadonlyArray<string>
  /** Scaled viewport width bounds, inclusive. */
  readonly viewportWidthMin?: number | undefined
  readonly viewportWidthMax?: number | undefined
  /** Count points, or the distinct ids that made them. */
  readonly aggregation: "total_count" | "unique_visitors"
  readonly limit: number
}

export interface PointCount {
  readonly pointer_target_fixed: boolean
  /** x / viewport width, rounded half up to two decimals. */
  readonly pointer_relative_x: number
  /** y in pixels (scaled back). */
  readonly pointer_y: number
  readonly count: number
}

export interface DepthCount {
  /** How far down the page the viewport's bottom reached, in buckets of 100 pixels. */
  readonly bucket: number
  readonly count: number
}

export class HeatmapStore extends Context.Tag("@zed/core/HeatmapStore")<
  HeatmapStore,
  {
    /** Keeps the points; a point already kept (same event and ordinal) is kept once. */
    readonly insert: (projectId: number, points: ReadonlyArray<HeatmapPoint>) => Effect.Effect<void, StorageError>
    /** The distinct URLs with points of the type in the range, at most `limit`, in URL order. */
    readonly urls: (
      projectId: number,
      range: HeatmapRange,
      limit: number
    ) => Effect.Effect<ReadonlyArray<string>, StorageError>
    /** Points by place, most counted first (ties by place), at most `limit`. */
    readonly points: (
      projectId: number,
      selection: HeatmapSelection
    ) => Effect.Effect<ReadonlyArray<PointCount>, StorageError>
    /** Counts by scroll depth bucket, deepest last. */
    readonly depths: (
      projectId: number,
      selection: HeatmapSelection
    ) => Effect.Effect<ReadonlyArray<DepthCount>, StorageError>
  }
>() {}

/** x / width rounded half up to two decimals, in integers so that every store rounds alike. */
export const relativeX = (x: number, width: number) => Math.floor((200 * x + width) / (2 * width)) / 100

/** The 100-pixel bucket a scroll depth point falls in. */
export const depthBucket = (y: number, height: number, scale: number) => Math.floor(((y + height) * scale) / 100) * 100

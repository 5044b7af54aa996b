import { Link } from "@tanstack/react-router"
import { type KeyboardEvent, type PointerEvent, useEffect, useMemo, useRef, useState } from "react"
import { InsightResult } from "../components/InsightResult.js"
import { insightName } from "../insightKinds.js"
import { COLUMNS, cellsMoved, changed, GAP, initialLayouts, type Layout, place, ROW } from "./grid.js"
import type { DashboardTile } from "./model.js"

// The dashboard's tiles on a 12-column grid. A tile moves by dragging its handle (or with the arrow
// keys on it) and resizes by dragging its corner (or arrows on the corner); while dragging, the
// grid shows where everything would land, and on release the changed layouts are saved. Narrower
// than a phone's width the tiles stack in grid order and do not move.

const STACKED_BELOW = 640

interface Drag {
  readonly id: number
  readonly mode: "move" | "resize"
  readonly startX: number
  readonly startY: number
  readonly base: Layout
}

const KEYS: Record<string, readonly [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1]
}

const tileName = (tile: DashboardTile) =>
  tile.insight ? insightName(tile.insight) : (tile.text?.body.split("\n")[0]?.replace(/^#+\s*/, "") ?? "Text")

export const TileGrid = ({
  project,
  tiles,
  onLayouts,
  onRemove
}: {
  readonly project: string
  readonly tiles: ReadonlyArray<DashboardTile>
  /** Saves the layouts (`sm`) of the tiles that changed. */
  readonly onLayouts: (changes: ReadonlyArray<readonly [number, Layout]>) => void
  readonly onRemove: (tile: DashboardTile) => void
}) => {
  const grid = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  const saved = useMemo(() => initialLayouts(tiles), [tiles])
  // The layouts as last arranged here, while the tiles are those they were arranged from.
  const [arranged, setArranged] = useState<{
    readonly of: Map<number, Layout>
    readonly layouts: Map<number, Layout>
  } | null>(null)
  const local = arranged?.of === saved ? arranged.layouts : saved
  const [drag, setDrag] = useState<Drag | null>(null)
  const [preview, setPreview] = useState<Map<number, Layout> | null>(null)
  const layouts = preview ?? local

  useEffect(() => {
    const element = grid.current
    if (!element) return
    const observer = new ResizeObserver(() => setWidth(element.clientWidth))
    observer.observe(element)
    setWidth(element.clientWidth)
    return () => observer.disconnect()
  }, [])

  const stacked = width > 0 && width < STACKED_BELOW
  const column = (width - GAP * (COLUMNS - 1)) / COLUMNS

  const commit = (next: Map<number, Layout>) => {
    const changes = changed(local, next)
    setArranged({ of: saved, layouts: next })
    if (changes.length > 0) onLayouts(changes)
  }
  const target = (d: Drag, dx: number, dy: number): Layout =>
    d.mode === "move"
      ? { ...d.base, x: d.base.x + dx, y: d.base.y + dy }
      : { ...d.base, w: d.base.w + dx, h: d.base.h + dy }

  const handlers = (id: number, mode: Drag["mode"]) => ({
    onPointerDown: (event: PointerEvent<HTMLElement>) => {
      if (event.button !== 0) return
      event.preventDefault()
      event.currentTarget.setPointerCapture(event.pointerId)
      setDrag({ id, mode, startX: event.clientX, startY: event.clientY, base: local.get(id)! })
    },
    onPointerMove: (event: PointerEvent<HTMLElement>) => {
      if (drag?.id !== id) return
      const { dx, dy } = cellsMoved(event.clientX - drag.startX, event.clientY - drag.startY, width)
      setPreview(place(local, id, target(drag, dx, dy)))
    },
    onPointerUp: () => {
      if (drag?.id !== id) return
      if (preview) commit(preview)
      setDrag(null)
      setPreview(null)
    },
    onPointerCancel: () => {
      setDrag(null)
      setPreview(null)
    },
    onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
      const step = KEYS[event.key]
      if (!step) return
      event.preventDefault()
      const base = local.get(id)!
      commit(place(local, id, target({ id, mode, startX: 0, startY: 0, base }, step[0], step[1])))
    }
  })

  const ordered = [...tiles].sort((a, b) => {
    const la = layouts.get(a.id)!
    const lb = layouts.get(b.id)!
    return la.y - lb.y || la.x - lb.x
  })
  const rows = Math.max(0, ...[...layouts.values()].map((l) => l.y + l.h))

  return (
    <div
      ref={grid}
      className={`tile-grid${stacked ? " stacked" : ""}${drag ? " dragging" : ""}`}
      style={stacked || width === 0 ? undefined : { height: rows * (ROW + GAP) - GAP }}
    >
      {width > 0 &&
        ordered.map((tile) => {
          const l = layouts.get(tile.id)!
          const name = tileName(tile)
          const style = stacked
            ? { minHeight: l.h * ROW }
            : {
                left: l.x * (column + GAP),
                top: l.y * (ROW + GAP),
                width: l.w * column + (l.w - 1) * GAP,
                height: l.h * ROW + (l.h - 1) * GAP
              }
          return (
            <article
              key={tile.id}
              className={`tile${drag?.id === tile.id ? " moving" : ""}`}
              style={{ ...style, ...(tile.color ? { borderTopColor: tile.color } : {}) }}
              aria-label={name}
              data-layout={`${l.x},${l.y},${l.w},${l.h}`}
            >
              <header className="tile-head">
                {!stacked && (
                  <button
                    type="button"
                    className="tile-move"
                    aria-label={`Move ${name}`}
                    {...handlers(tile.id, "move")}
                  >
                    ⠿
                  </button>
                )}
                <h2>
                  {tile.insight ? (
                    <Link to="/project/$id/insights/$shortId" params={{ id: project, shortId: tile.insight.short_id }}>
                      {name}
                    </Link>
                  ) : (
                    name
                  )}
                </h2>
                <button type="button" className="link" aria-label={`Remove ${name}`} onClick={() => onRemove(tile)}>
                  Remove
                </button>
              </header>
              <div className="tile-body">
                {tile.insight ? (
                  // Drawn again at a new width: the charts size themselves when they are made.
                  <InsightResult key={l.w} insight={tile.insight} />
                ) : (
                  <p className="text-card">{tile.text?.body}</p>
                )}
              </div>
              {!stacked && (
                <button
                  type="button"
                  className="tile-resize"
                  aria-label={`Resize ${name}`}
                  {...handlers(tile.id, "resize")}
                />
              )}
            </article>
          )
        })}
    </div>
  )
}

// The dashboard grid's arithmetic, kept apart from React: 12 columns, rows of fixed height, tiles
// as `{x, y, w, h}` in cells. After a tile is moved or resized every tile falls upwards as far as
// it can without overlapping those above it (the moved one first among equals), so tiles never
// overlap and no gaps are left.

export interface Layout {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

export const COLUMNS = 12
/** A row's height in pixels. */
export const ROW = 80
/** The gap between tiles in pixels. */
export const GAP = 12

const DEFAULT = { w: 6, h: 5 }

const overlaps = (a: Layout, b: Layout) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h

/** The tile kept within the grid's columns, at least one cell big. */
export const clamp = (l: Layout): Layout => {
  const w = Math.min(COLUMNS, Math.max(1, Math.round(l.w)))
  return {
    w,
    h: Math.max(1, Math.round(l.h)),
    x: Math.min(COLUMNS - w, Math.max(0, Math.round(l.x))),
    y: Math.max(0, Math.round(l.y))
  }
}

/** Every tile falls upwards in order of its top (`first` before others at the same row). */
export const compact = (layouts: ReadonlyMap<number, Layout>, first?: number): Map<number, Layout> => {
  const order = [...layouts.entries()].sort(
    ([a, la], [b, lb]) => la.y - lb.y || Number(b === first) - Number(a === first) || la.x - lb.x
  )
  const placed = new Map<number, Layout>()
  for (const [id, layout] of order) {
    let y = 0
    const at = () => ({ ...layout, y })
    while ([...placed.values()].some((other) => overlaps(at(), other))) y += 1
    placed.set(id, at())
  }
  return placed
}

/** Layouts for every tile: its own where it has one, the others two by two below them. */
export const initialLayouts = (
  tiles: ReadonlyArray<{ readonly id: number; readonly layouts: Record<string, Layout | undefined> }>
): Map<number, Layout> => {
  const given = new Map<number, Layout>()
  for (const tile of tiles) {
    const sm = tile.layouts["sm"]
    if (sm) given.set(tile.id, clamp(sm))
  }
  const bottom = Math.max(0, ...[...given.values()].map((l) => l.y + l.h))
  tiles
    .filter((t) => !given.has(t.id))
    .forEach((tile, i) => {
      given.set(tile.id, { ...DEFAULT, x: (i % 2) * DEFAULT.w, y: bottom + Math.floor(i / 2) * DEFAULT.h })
    })
  return compact(given)
}

/** The layouts after `id` is put at `to` (moved or resized). */
export const place = (layouts: ReadonlyMap<number, Layout>, id: number, to: Layout) =>
  compact(new Map([...layouts, [id, clamp(to)]]), id)

/** The tiles whose layout differs between `before` and `after`. */
export const changed = (before: ReadonlyMap<number, Layout>, after: ReadonlyMap<number, Layout>) =>
  [...after].filter(([id, l]) => {
    const b = before.get(id)
    return b === undefined || b.x !== l.x || b.y !== l.y || b.w !== l.w || b.h !== l.h
  })

/** Pixels to cells: how far a pointer moved, with the grid `width` pixels wide. */
export const cellsMoved = (dx: number, dy: number, width: number) => ({
  dx: Math.round((dx * COLUMNS) / Math.max(1, width + GAP)),
  dy: Math.round(dy / (ROW + GAP))
})

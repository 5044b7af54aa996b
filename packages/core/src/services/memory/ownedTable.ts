import type { Journal } from "./journal.js"

// One in-memory table of soft-deleted entities owned by a project (and whatever else the owner
// holds, e.g. an organization): the ids, timestamps, journaled writes and patch semantics that the
// actions, annotations, experiments and holdouts stores share. Each store keeps its own queries.

/** What the table stamps on every row. */
export interface Stamped {
  readonly id: number
  readonly deleted: boolean
  readonly created_at: Date
  readonly updated_at: Date
}

export const makeOwnedTable = <Row extends Stamped, Owner extends object>(
  journal: Journal,
  ownerKeys: ReadonlyArray<keyof Owner>
) => {
  type Owned = Row & Owner
  const rows = new Map<number, Owned>()
  let next = 1
  const strip = (row: Owned): Row => {
    const copy: Record<string, unknown> = { ...(row as object) }
    for (const key of ownerKeys) delete copy[key as string]
    return copy as unknown as Row
  }
  return {
    strip,
    /** Rows not deleted that the predicate keeps, newest first. */
    live: (keep: (row: Owned) => boolean): Array<Owned> =>
      [...rows.values()].filter((r) => !r.deleted && keep(r)).sort((a, b) => b.id - a.id),
    insert: (input: Omit<Row, keyof Stamped>, owner: Owner): Row => {
      const now = new Date()
      const row = { ...input, ...owner, id: next++, deleted: false, created_at: now, updated_at: now } as Owned
      journal.set(rows, row.id, row)
      return strip(row)
    },
    /** The row with the patch's defined fields. */
    patch: (row: Owned, patch: object): Row => {
      const changed = {
        ...row,
        ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
        updated_at: new Date()
      } as Owned
      journal.set(rows, row.id, changed)
      return strip(changed)
    }
  }
}

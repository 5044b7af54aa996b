import { Effect, Option } from "effect"
import { uuidv7 } from "../../ingest/uuid.js"
import { type StoredFunction, ZedFunctionStore } from "../ZedFunctionStore.js"
import type { Journal } from "./journal.js"

/** `seq` stands for SQL's finer clock among functions created in one millisecond. */
type Owned = StoredFunction & { readonly project_id: number; readonly seq: number }

const strip = ({ project_id: _, seq: __, ...rest }: Owned): StoredFunction => rest

/** As SQL orders: `execution_order` with nulls last, then creation. */
const ordering = (a: Owned, b: Owned) =>
  (a.execution_order === b.execution_order
    ? 0
    : a.execution_order === null
      ? 1
      : b.execution_order === null
        ? -1
        : a.execution_order - b.execution_order) ||
  a.created_at.getTime() - b.created_at.getTime() ||
  a.seq - b.seq

export const makeMemoryFunctions = (journal: Journal) => {
  const functions = new Map<string, Owned>()
  let seq = 1

  // UUIDs compare without case, as SQL's uuid type does.
  const find = (projectId: number, id: string, includeDeleted: boolean) =>
    Option.fromNullable(functions.get(id.toLowerCase())).pipe(
      Option.filter((f) => f.project_id === projectId && (includeDeleted || !f.deleted))
    )

  const nextOrder = (projectId: number) =>
    Math.max(
      0,
      ...[...functions.values()]
        .filter((f) => f.project_id === projectId && f.type === "transformation" && !f.deleted)
        .map((f) => f.execution_order ?? 0)
    ) + 1

  return ZedFunctionStore.of({
    list: (projectId, includeDeleted = false) =>
      Effect.sync(() =>
        [...functions.values()]
          .filter((f) => f.project_id === projectId && (includeDeleted || !f.deleted))
          .sort(ordering)
          .map(strip)
      ),
    get: (projectId, id, includeDeleted = false) =>
      Effect.sync(() => Option.map(find(projectId, id, includeDeleted), strip)),
    create: (projectId, fn) =>
      Effect.sync(() => {
        const now = new Date()
        const stored: Owned = {
          ...fn,
          id: uuidv7(),
          project_id: projectId,
          seq: seq++,
          execution_order: fn.execution_order ?? (fn.type === "transformation" ? nextOrder(projectId) : null),
          created_at: now,
          updated_at: now
        }
        journal.set(functions, stored.id, stored)
        return strip(stored)
      }),
    update: (projectId, id, patch) =>
      Effect.sync(() =>
        Option.map(find(projectId, id, true), (fn) => {
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          const next: Owned = { ...fn, ...defined, updated_at: new Date() }
          journal.set(functions, next.id, next)
          return strip(next)
        })
      )
  })
}

import { Effect, Option } from "effect"
import { type AnnotationOwner, AnnotationStore, type StoredAnnotation } from "../AnnotationStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredAnnotation & { readonly project_id: number; readonly organization_id: string }

const strip = ({ organization_id: _, project_id: __, ...rest }: Owned): StoredAnnotation => rest

/** Latest date first, undated last, then newest. */
const order = (a: Owned, b: Owned) =>
  (b.date_marker?.getTime() ?? -Infinity) - (a.date_marker?.getTime() ?? -Infinity) || b.id - a.id

export const makeMemoryAnnotations = (journal: Journal) => {
  const annotations = new Map<number, Owned>()
  let next = 1
  const visible = (owner: AnnotationOwner, a: Owned) =>
    !a.deleted &&
    (a.project_id === owner.projectId || (a.scope === "organization" && a.organization_id === owner.organizationId))
  const find = (owner: AnnotationOwner, id: number) => {
    const found = annotations.get(id)
    return found !== undefined && visible(owner, found) ? found : undefined
  }
  return AnnotationStore.of({
    list: (owner, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = [...annotations.values()]
          .filter(
            (a) =>
              visible(owner, a) &&
              (search === undefined || (a.content ?? "").toLowerCase().includes(search)) &&
              (q.scope === undefined || a.scope === q.scope) &&
              (q.dashboardItem === undefined || a.dashboard_item === q.dashboardItem) &&
              (q.dateFrom === undefined || (a.date_marker !== null && a.date_marker >= q.dateFrom)) &&
              (q.dateTo === undefined || (a.date_marker !== null && a.date_marker <= q.dateTo)) &&
              (q.after === undefined || a.created_at > q.after) &&
              (q.before === undefined || a.created_at < q.before)
          )
          .sort(order)
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(strip) }
      }),
    get: (owner, id) => Effect.sync(() => Option.fromNullable(find(owner, id)).pipe(Option.map(strip))),
    create: (owner, input) =>
      Effect.sync(() => {
        const now = new Date()
        const annotation: Owned = {
          ...input,
          id: next++,
          project_id: owner.projectId,
          organization_id: owner.organizationId,
          deleted: false,
          created_at: now,
          updated_at: now
        }
        journal.set(annotations, annotation.id, annotation)
        return strip(annotation)
      }),
    update: (owner, id, patch) =>
      Effect.sync(() => {
        const annotation = find(owner, id)
        if (annotation === undefined) return Option.none()
        const changed: Owned = {
          ...annotation,
          ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
          updated_at: new Date()
        }
        journal.set(annotations, id, changed)
        return Option.some(strip(changed))
      })
  })
}

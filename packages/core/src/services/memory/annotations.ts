import { Effect, Option } from "effect"
import { type AnnotationOwner, AnnotationStore, type StoredAnnotation } from "../AnnotationStore.js"
import type { Journal } from "./journal.js"
import { makeOwnedTable } from "./ownedTable.js"

type Owner = { readonly project_id: number; readonly organization_id: string }

/** Latest date first, undated last, then newest. */
const order = (a: StoredAnnotation, b: StoredAnnotation) =>
  (b.date_marker?.getTime() ?? -Infinity) - (a.date_marker?.getTime() ?? -Infinity) || b.id - a.id

export const makeMemoryAnnotations = (journal: Journal) => {
  const table = makeOwnedTable<StoredAnnotation, Owner>(journal, ["project_id", "organization_id"])
  const visible = (owner: AnnotationOwner) =>
    table.live(
      (a) =>
        a.project_id === owner.projectId || (a.scope === "organization" && a.organization_id === owner.organizationId)
    )
  const find = (owner: AnnotationOwner, id: number) => visible(owner).find((a) => a.id === id)
  return AnnotationStore.of({
    list: (owner, q) =>
      Effect.sync(() => {
        const search = q.search?.toLowerCase()
        const selected = visible(owner)
          .filter(
            (a) =>
              (search === undefined || (a.content ?? "").toLowerCase().includes(search)) &&
              (q.scope === undefined || a.scope === q.scope) &&
              (q.dashboardItem === undefined || a.dashboard_item === q.dashboardItem) &&
              (q.dateFrom === undefined || (a.date_marker !== null && a.date_marker >= q.dateFrom)) &&
              (q.dateTo === undefined || (a.date_marker !== null && a.date_marker <= q.dateTo)) &&
              (q.after === undefined || a.created_at > q.after) &&
              (q.before === undefined || a.created_at < q.before)
          )
          .sort(order)
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(table.strip) }
      }),
    get: (owner, id) => Effect.sync(() => Option.fromNullable(find(owner, id)).pipe(Option.map(table.strip))),
    create: (owner, input) =>
      Effect.sync(() => table.insert(input, { project_id: owner.projectId, organization_id: owner.organizationId })),
    update: (owner, id, patch) =>
      Effect.sync(() => Option.map(Option.fromNullable(find(owner, id)), (a) => table.patch(a, patch)))
  })
}

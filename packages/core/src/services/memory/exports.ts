import { Effect, Option } from "effect"
import { ExportStore, type StoredExport } from "../ExportStore.js"
import type { Journal } from "./journal.js"

type Owned = StoredExport & { readonly project_id: number }

const strip = ({ project_id: _, ...rest }: Owned): StoredExport => rest

export const makeMemoryExports = (journal: Journal) => {
  const exports = new Map<number, Owned>()
  const chunks = new Map<number, Array<Uint8Array>>()
  let next = 1
  const find = (projectId: number, id: number) => {
    const found = exports.get(id)
    return found?.project_id === projectId ? found : undefined
  }
  return ExportStore.of({
    list: (projectId, q) =>
      Effect.sync(() => {
        const selected = [...exports.values()].filter((e) => e.project_id === projectId).sort((a, b) => b.id - a.id)
        return { count: selected.length, results: selected.slice(q.offset, q.offset + q.limit).map(strip) }
      }),
    get: (projectId, id) => Effect.sync(() => Option.fromNullable(find(projectId, id)).pipe(Option.map(strip))),
    create: (projectId, input) =>
      Effect.sync(() => {
        const asset: Owned = {
          ...input,
          id: next++,
          project_id: projectId,
          has_content: false,
          exception: null,
          row_count: 0,
          content_size: 0,
          created_at: new Date()
        }
        journal.set(exports, asset.id, asset)
        return strip(asset)
      }),
    finish: (projectId, id, outcome) =>
      Effect.sync(() => {
        const asset = find(projectId, id)
        if (asset !== undefined) journal.set(exports, id, { ...asset, ...outcome })
      }),
    appendChunk: (exportId, seq, bytes) =>
      Effect.sync(() => {
        const list = chunks.get(exportId) ?? []
        list[seq] = bytes
        chunks.set(exportId, list)
      }),
    chunk: (exportId, seq) => Effect.sync(() => Option.fromNullable(chunks.get(exportId)?.[seq])),
    removeExpired: (now) =>
      Effect.sync(() => {
        let removed = 0
        for (const asset of [...exports.values()])
          if (asset.expires_after !== null && asset.expires_after <= now) {
            journal.delete(exports, asset.id)
            chunks.delete(asset.id)
            removed++
          }
        return removed
      })
  })
}

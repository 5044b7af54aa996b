import { isObject } from "../domain/json.js"

// Ids that entities hold of each other, renumbered on import: cohorts in property filters (nested
// cohorts, flags, insights), actions in series, flags in flag dependencies.
// Ids the maps do not know are left as they are; ids written inside ZedQL text are not rewritten.

export interface IdMaps {
  readonly cohort: ReadonlyMap<number, number>
  readonly action: ReadonlyMap<number, number>
  readonly flag: ReadonlyMap<number, number>
}

const mapped = (map: ReadonlyMap<number, number>, id: unknown): unknown => {
  const n = typeof id === "string" && /^\d+$/.test(id) ? Number(id) : id
  if (typeof n !== "number") return id
  const to = map.get(n)
  return to === undefined ? id : typeof id === "string" ? String(to) : to
}

/** A copy of `value` with the ids it refers to renumbered. */
export const remapIds = (value: unknown, maps: IdMaps): unknown => {
  if (Array.isArray(value)) return value.map((v) => remapIds(v, maps))
  if (!isObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[key] = remapIds(v, maps)
  if (value["type"] === "cohort" && "value" in value) out["value"] = mapped(maps.cohort, value["value"])
  if (value["type"] === "flag" && "key" in value) out["key"] = mapped(maps.flag, value["key"])
  if ((value["kind"] === "ActionsNode" || value["type"] === "actions") && "id" in value)
    out["id"] = mapped(maps.action, value["id"])
  return out
}

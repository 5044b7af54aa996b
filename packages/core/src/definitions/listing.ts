import { SESSION_FIELDS } from "../zedql/tables.js"
import type { ZType } from "../zedql/types.js"
import type { PropertyType, StoredEventDefinition } from "./definitionEntity.js"

// Which definitions a list request selects, and in which order: one set of rules for every store.

/** Whether every whitespace-separated term of `search` is in `name`, ignoring case (PostHog's term search). */
export const matchesSearch = (name: string, search: string | undefined): boolean => {
  if (search === undefined) return true
  const lower = name.toLowerCase()
  return search
    .toLowerCase()
    .split(/\s+/)
    .every((term) => lower.includes(term))
}

/** PostHog's own events are those whose name starts with `$`. */
export const EVENT_TYPES = ["all", "custom", "posthog"] as const
export const EVENT_ORDERINGS = ["name", "-name", "last_seen_at", "-last_seen_at"] as const

export interface EventSelection {
  readonly search?: string | undefined
  readonly eventType: (typeof EVENT_TYPES)[number]
  readonly excludeHidden: boolean
  readonly ordering: (typeof EVENT_ORDERINGS)[number]
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0

export const selectEvents = (
  definitions: ReadonlyArray<StoredEventDefinition>,
  { eventType, excludeHidden, ordering, search }: EventSelection
): Array<StoredEventDefinition> => {
  const selected = definitions.filter(
    (d) =>
      matchesSearch(d.name, search) &&
      (eventType === "all" || d.name.startsWith("$") === (eventType === "posthog")) &&
      !(excludeHidden && d.hidden)
  )
  // Never seen last either way; ties (never seen included: Infinity - Infinity is NaN) by name.
  const seen = (d: StoredEventDefinition, never: number) => d.last_seen_at?.getTime() ?? never
  switch (ordering) {
    case "name":
      return selected.sort(byName)
    case "-name":
      return selected.sort((a, b) => byName(b, a))
    case "last_seen_at":
      return selected.sort((a, b) => seen(a, Infinity) - seen(b, Infinity) || byName(a, b))
    case "-last_seen_at":
      return selected.sort((a, b) => seen(b, -Infinity) - seen(a, -Infinity) || byName(a, b))
  }
}

/** A property definition as listings see it, whatever it belongs to. */
export interface ListedProperty {
  readonly key: string
  readonly propertyType: PropertyType | null
  readonly hidden: boolean
}

export interface PropertySelection {
  readonly search?: string | undefined
  readonly isNumerical?: boolean | undefined
  /** Only these keys. */
  readonly keys?: ReadonlySet<string> | undefined
  readonly excluded: ReadonlySet<string>
  readonly excludeHidden: boolean
  /** Keys seen with the events asked about, if any were: those come first, or alone with `onlySeen`. */
  readonly seen?: ReadonlySet<string> | undefined
  readonly onlySeen: boolean
}

/** The properties selected, each with whether it was seen with the events asked about (null when none were). */
export const selectProperties = <P extends ListedProperty>(
  definitions: ReadonlyArray<P>,
  { excludeHidden, excluded, isNumerical, keys, onlySeen, search, seen }: PropertySelection
): Array<{ readonly definition: P; readonly seen: boolean | null }> =>
  definitions
    .filter(
      (d) =>
        matchesSearch(d.key, search) &&
        (isNumerical === undefined || (d.propertyType === "Numeric") === isNumerical) &&
        (keys === undefined || keys.has(d.key)) &&
        !excluded.has(d.key) &&
        !(excludeHidden && d.hidden) &&
        !(onlySeen && seen !== undefined && !seen.has(d.key))
    )
    .map((definition) => ({ definition, seen: seen === undefined ? null : seen.has(definition.key) }))
    .sort(
      (a, b) =>
        Number(b.seen === true) - Number(a.seen === true) ||
        (a.definition.key < b.definition.key ? -1 : a.definition.key > b.definition.key ? 1 : 0)
    )

const propertyTypeOf = (type: ZType): PropertyType | null => {
  switch (type.kind) {
    case "Int":
    case "Float":
      return "Numeric"
    case "Bool":
      return "Boolean"
    case "DateTime":
      return "DateTime"
    case "String":
      return "String"
    default:
      return null
  }
}

/** The sessions table's fields as properties: fixed, so not stored, described or changed. */
export const SESSION_PROPERTIES: ReadonlyArray<ListedProperty> = Object.entries(SESSION_FIELDS).map(
  ([key, { type }]) => ({ key, propertyType: propertyTypeOf(type), hidden: false })
)

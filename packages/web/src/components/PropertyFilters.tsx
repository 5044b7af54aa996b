import { fields, list, oneOf, text } from "../queryFields.js"
import { Choice, Field } from "./Field.js"
import { ItemList } from "./ItemList.js"

// Property filters as the builder edits them: an event or person property, an operator and a value,
// made into PostHog's property filter list (every filter must hold).

const OPERATORS = {
  exact: "=",
  is_not: "≠",
  icontains: "contains",
  not_icontains: "doesn't contain",
  gt: ">",
  lt: "<",
  is_set: "is set",
  is_not_set: "is not set"
} as const

const TYPES = { event: "Event property", person: "Person property" } as const

export interface FilterDraft {
  readonly type: keyof typeof TYPES
  readonly key: string
  readonly operator: keyof typeof OPERATORS
  readonly value: string
}

const BLANK: FilterDraft = { type: "event", key: "", operator: "exact", value: "" }
const VALUELESS = new Set(["is_set", "is_not_set"])
const NUMERIC = new Set(["gt", "lt"])

/** The filters with a property, as the API takes them (numbers compared as numbers). */
export const propertyFilters = (filters: ReadonlyArray<FilterDraft>) =>
  filters
    .filter((filter) => filter.key.trim() !== "")
    .map(({ type, key, operator, value }) => ({
      type,
      key: key.trim(),
      operator,
      ...(VALUELESS.has(operator) ? {} : { value: NUMERIC.has(operator) ? Number(value) : value })
    }))

/** A stored property filter list as the builder edits it. */
export const filterDrafts = (value: unknown): ReadonlyArray<FilterDraft> =>
  list(value).map((filter) => {
    const { type, key, operator, value } = fields(filter)
    return {
      type: oneOf(type, TYPES, "event"),
      key: text(key),
      operator: oneOf(operator, OPERATORS, "exact"),
      value: text(value)
    }
  })

/** The filters of `legend`, each labelled with `prefix` and its number. */
export const PropertyFilters = ({
  legend,
  prefix,
  filters,
  onChange
}: {
  readonly legend: string
  readonly prefix: string
  readonly filters: ReadonlyArray<FilterDraft>
  readonly onChange: (filters: ReadonlyArray<FilterDraft>) => void
}) => (
  <ItemList legend={legend} noun={`${prefix.toLowerCase()}`} items={filters} min={0} blank={BLANK} onChange={onChange}>
    {(filter, i, set) => (
      <>
        <Choice
          label={`${prefix} ${i + 1} type`}
          value={filter.type}
          options={TYPES}
          onChange={(type) => set({ ...filter, type })}
        />
        <Field label={`${prefix} ${i + 1} property`} value={filter.key} onChange={(key) => set({ ...filter, key })} />
        <Choice
          label={`${prefix} ${i + 1} operator`}
          value={filter.operator}
          options={OPERATORS}
          onChange={(operator) => set({ ...filter, operator })}
        />
        {!VALUELESS.has(filter.operator) && (
          <Field
            label={`${prefix} ${i + 1} value`}
            value={filter.value}
            onChange={(value) => set({ ...filter, value })}
          />
        )}
      </>
    )}
  </ItemList>
)

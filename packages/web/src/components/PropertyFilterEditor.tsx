import {
  COHORT_OPERATORS,
  DEPENDENCY_OPERATORS,
  hasValue,
  PERSON_OPERATORS,
  type PropertyFilter
} from "../flagModel.js"
import { Choice, Field } from "./Field.js"

const TYPES = { person: "Person property", group: "Group property", cohort: "Cohort", flag: "Flag" } as const

/** Choices of ids: cohorts or flags, by id → name. */
export type Named = Readonly<Record<string, string>>

/** A blank person property filter, as the editor holds it. */
export const BLANK_FILTER: PropertyFilter = { key: "", type: "person", operator: "exact", value: "" }

/** A blank filter on the properties of what a flag matches: persons, or groups of one type. */
export const blankFilterOf = (groupTypeIndex: number | null): PropertyFilter =>
  groupTypeIndex === null ? BLANK_FILTER : { ...BLANK_FILTER, type: "group", group_type_index: groupTypeIndex }

/** One property filter (its value as typed, see `toDraft`): its kind (person property, cohort, flag), key, operator and value. */
export const PropertyFilterEditor = ({
  filter,
  onChange,
  label,
  cohorts,
  flags,
  groupTypeIndex = null,
  kindChosen = false
}: {
  readonly filter: PropertyFilter
  readonly onChange: (filter: PropertyFilter) => void
  readonly label: string
  /** Kinds other than person properties are offered when their choices are given. */
  readonly cohorts?: Named
  readonly flags?: Named
  /** Of a flag matching groups of this type: their properties take the place of the person's. */
  readonly groupTypeIndex?: number | null
  /** The kind is chosen outside (the cohort editor adds behaviour to the kinds). */
  readonly kindChosen?: boolean
}) => {
  const types = Object.fromEntries(
    Object.entries(TYPES).filter(([type]) =>
      type === "person"
        ? groupTypeIndex === null
        : type === "group"
          ? groupTypeIndex !== null
          : type === "cohort"
            ? cohorts
            : flags
    )
  ) as Record<PropertyFilter["type"], string>
  const isProperty = filter.type === "person" || filter.type === "group"
  const operators = isProperty ? PERSON_OPERATORS : filter.type === "cohort" ? COHORT_OPERATORS : DEPENDENCY_OPERATORS
  const operator = filter.operator ?? Object.keys(operators)[0]!
  const setType = (type: PropertyFilter["type"]) =>
    onChange(
      type === "person" || type === "group"
        ? blankFilterOf(groupTypeIndex)
        : type === "cohort"
          ? { key: "id", type, operator: "in", value: Number(Object.keys(cohorts ?? {})[0] ?? 0) }
          : { key: Object.keys(flags ?? {})[0] ?? "", type, operator: "flag_evaluates_to", value: "true" }
    )
  return (
    <fieldset className="toolbar filter-row">
      <legend className="visually-hidden">{label}</legend>
      {!kindChosen && Object.keys(types).length > 1 && (
        <Choice label={`${label}: kind`} value={filter.type} options={types} onChange={setType} />
      )}
      {isProperty && (
        <Field
          label={`${label}: property`}
          value={filter.key}
          onChange={(key) => onChange({ ...filter, key })}
          placeholder="email"
        />
      )}
      {filter.type === "cohort" && (
        <Choice
          label={`${label}: cohort`}
          value={String(filter.value ?? "")}
          options={cohorts ?? {}}
          onChange={(value) => onChange({ ...filter, value: Number(value) })}
        />
      )}
      {filter.type === "flag" && (
        <Choice
          label={`${label}: flag`}
          value={filter.key}
          options={flags ?? {}}
          onChange={(key) => onChange({ ...filter, key })}
        />
      )}
      {filter.type !== "flag" && (
        <Choice
          label={`${label}: operator`}
          value={operator}
          options={operators as Record<string, string>}
          onChange={(next) => onChange({ ...filter, operator: next })}
        />
      )}
      {filter.type !== "cohort" && hasValue(operator) && (
        <Field
          label={`${label}: value`}
          value={String(filter.value ?? "")}
          onChange={(value) => onChange({ ...filter, value })}
          placeholder={filter.type === "flag" ? "true, false or a variant" : "value"}
        />
      )}
    </fieldset>
  )
}

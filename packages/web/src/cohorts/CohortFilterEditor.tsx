import { Choice, Field } from "../components/Field.js"
import { FieldError, names } from "../components/FieldError.js"
import { BLANK_FILTER, type Named, PropertyFilterEditor } from "../components/PropertyFilterEditor.js"
import {
  BEHAVIOURS,
  BLANK_BEHAVIOUR,
  type BehaviourDraft,
  COUNT_OPERATORS,
  type CohortFilterDraft,
  INTERVALS,
  isBehaviour,
  usesCount,
  usesRecent,
  usesSequence
} from "./cohortFilters.js"

const KINDS = { person: "Person property", cohort: "Cohort", behavioral: "Behaviour" } as const
type Kind = keyof typeof KINDS
/** A behaviour's fields whose refusals are shown beside their inputs. */
const BESIDE = ["key", "operator_value", "time_value", "seq_event", "seq_time_value"]

/** A count and its unit, e.g. "in the last 30 days"; the API's refusal of either shown beside them. */
const Period = ({
  label,
  value,
  interval,
  onChange,
  error,
  attr
}: {
  readonly label: string
  readonly value: string
  readonly interval: BehaviourDraft["time_interval"]
  readonly onChange: (value: string, interval: BehaviourDraft["time_interval"]) => void
  readonly error: unknown
  readonly attr: string
}) => (
  <>
    <Field label={label} value={value} inputMode="numeric" onChange={(next) => onChange(next, interval)} />
    <Choice label={`${label}: unit`} value={interval} options={INTERVALS} onChange={(next) => onChange(value, next)} />
    <FieldError error={error} attr={attr} />
  </>
)

/** One behavioural filter: what the person did, in which period, and how often or in what order. */
const BehaviourEditor = ({
  label,
  filter,
  onChange,
  error,
  attr
}: {
  readonly label: string
  readonly filter: BehaviourDraft
  readonly onChange: (filter: BehaviourDraft) => void
  readonly error: unknown
  readonly attr: string
}) => (
  <>
    <Choice
      label={`${label}: behaviour`}
      value={filter.value}
      options={BEHAVIOURS}
      onChange={(value) => onChange({ ...filter, value })}
    />
    <Field label={`${label}: event`} value={filter.key} onChange={(key) => onChange({ ...filter, key })} />
    <FieldError error={error} attr={`${attr}__key`} />
    {usesCount(filter.value) && (
      <>
        <Choice
          label={`${label}: times`}
          value={filter.operator}
          options={COUNT_OPERATORS}
          onChange={(operator) => onChange({ ...filter, operator })}
        />
        <Field
          label={`${label}: count`}
          value={filter.operator_value}
          inputMode="numeric"
          onChange={(operator_value) => onChange({ ...filter, operator_value })}
        />
        <FieldError error={error} attr={`${attr}__operator_value`} />
      </>
    )}
    <Period
      label={`${label}: in the last`}
      value={filter.time_value}
      interval={filter.time_interval}
      onChange={(time_value, time_interval) => onChange({ ...filter, time_value, time_interval })}
      error={error}
      attr={`${attr}__time_value`}
    />
    {usesSequence(filter.value) && (
      <>
        <Field
          label={`${label}: then event`}
          value={filter.seq_event}
          onChange={(seq_event) => onChange({ ...filter, seq_event })}
        />
        <FieldError error={error} attr={`${attr}__seq_event`} />
      </>
    )}
    {(usesRecent(filter.value) || usesSequence(filter.value)) && (
      <Period
        label={usesSequence(filter.value) ? `${label}: within` : `${label}: but not in the last`}
        value={filter.seq_time_value}
        interval={filter.seq_time_interval}
        onChange={(seq_time_value, seq_time_interval) => onChange({ ...filter, seq_time_value, seq_time_interval })}
        error={error}
        attr={`${attr}__seq_time_value`}
      />
    )}
  </>
)

/** One filter of a dynamic cohort: a person property, another cohort (nested) or a behaviour, each
 * negatable; `attr` is the filter's path in the API's refusals. */
export const CohortFilterEditor = ({
  label,
  filter,
  onChange,
  cohorts,
  error,
  attr
}: {
  readonly label: string
  readonly filter: CohortFilterDraft
  readonly onChange: (filter: CohortFilterDraft) => void
  /** The project's other cohorts, by id → name. */
  readonly cohorts: Named
  readonly error: unknown
  readonly attr: string
}) => {
  // Nesting is offered once the project has another cohort.
  const kinds = (
    Object.keys(cohorts).length > 0 ? KINDS : { person: KINDS.person, behavioral: KINDS.behavioral }
  ) as Record<Kind, string>
  const setKind = (kind: Kind) =>
    onChange(
      kind === "behavioral"
        ? BLANK_BEHAVIOUR
        : kind === "cohort"
          ? { key: "id", type: "cohort", operator: "in", value: Number(Object.keys(cohorts)[0] ?? 0) }
          : BLANK_FILTER
    )
  return (
    <fieldset className="toolbar filter-row">
      <legend className="visually-hidden">{label}</legend>
      <Choice label={`${label}: kind`} value={filter.type as Kind} options={kinds} onChange={setKind} />
      {isBehaviour(filter) ? (
        <BehaviourEditor label={label} filter={filter} onChange={onChange} error={error} attr={attr} />
      ) : (
        <PropertyFilterEditor label={label} filter={filter} onChange={onChange} cohorts={cohorts} kindChosen />
      )}
      {/* A nested cohort is negated by its operator ("not in cohort"). */}
      {filter.type !== "cohort" && (
        <label className="inline">
          <input
            type="checkbox"
            checked={filter.negation === true}
            onChange={(event) => onChange({ ...filter, negation: event.target.checked })}
          />{" "}
          <span className="visually-hidden">{label}: </span>not
        </label>
      )}
      {/* Refusals of the filter itself or of fields not drawn beside their own input. */}
      {names(error, attr) && !(isBehaviour(filter) && BESIDE.some((field) => names(error, `${attr}__${field}`))) && (
        <FieldError error={error} attr={attr} />
      )}
    </fieldset>
  )
}

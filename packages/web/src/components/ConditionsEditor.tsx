import type { Condition } from "../flagModel.js"
import { Choice, Field } from "./Field.js"
import { FieldError } from "./FieldError.js"
import { ItemList } from "./ItemList.js"
import { blankFilterOf, type Named, PropertyFilterEditor } from "./PropertyFilterEditor.js"

export const BLANK_CONDITION: Condition = { properties: [], rollout_percentage: 100 }

/** Release conditions (ORed, first match wins): each one's filters, rollout percentage and, for a
 * multivariate flag, an optional variant. The API's refusals show beside the condition they name,
 * under `attr` (`filters__groups`). */
export const ConditionsEditor = ({
  conditions,
  onChange,
  attr,
  error,
  variants = [],
  cohorts,
  flags,
  groupTypeIndex = null
}: {
  readonly conditions: ReadonlyArray<Condition>
  readonly onChange: (conditions: ReadonlyArray<Condition>) => void
  readonly attr: string
  readonly error: unknown
  readonly variants?: ReadonlyArray<string>
  readonly cohorts?: Named
  readonly flags?: Named
  /** Of a flag matching groups of this type (null: persons). */
  readonly groupTypeIndex?: number | null
}) => (
  <ItemList
    legend="Release conditions"
    noun="condition"
    items={conditions}
    min={0}
    blank={BLANK_CONDITION}
    onChange={onChange}
  >
    {(condition, i, set) => (
      <div className="stack condition">
        <strong>Condition {i + 1}</strong>
        <ItemList
          legend={`Condition ${i + 1}: match ${groupTypeIndex === null ? "persons" : "groups"} where (all of)`}
          noun={`filter to condition ${i + 1}`}
          items={condition.properties}
          min={0}
          blank={blankFilterOf(groupTypeIndex)}
          onChange={(properties) => set({ ...condition, properties })}
        >
          {(filter, j, setFilter) => (
            <>
              <PropertyFilterEditor
                label={`Condition ${i + 1} filter ${j + 1}`}
                filter={filter}
                onChange={setFilter}
                cohorts={cohorts}
                flags={flags}
                groupTypeIndex={groupTypeIndex}
              />
              <FieldError error={error} attr={`${attr}__${i}__properties__${j}`} />
            </>
          )}
        </ItemList>
        <Field
          label={`Condition ${i + 1}: rollout %`}
          type="number"
          min={0}
          max={100}
          step="any"
          value={String(condition.rollout_percentage ?? 100)}
          onChange={(text) => set({ ...condition, rollout_percentage: text === "" ? null : Number(text) })}
        />
        <FieldError error={error} attr={`${attr}__${i}__rollout_percentage`} />
        {variants.length > 0 && (
          <Choice
            label={`Condition ${i + 1}: variant`}
            value={condition.variant ?? ""}
            options={{ "": "Split by the variants' rollout", ...Object.fromEntries(variants.map((v) => [v, v])) }}
            onChange={(variant) => set({ ...condition, variant: variant === "" ? null : variant })}
          />
        )}
      </div>
    )}
  </ItemList>
)

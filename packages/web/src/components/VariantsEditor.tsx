import type { Variant } from "../flagModel.js"
import { Field } from "./Field.js"
import { FieldError } from "./FieldError.js"
import { ItemList } from "./ItemList.js"

/** A payload's text: JSON, checked here before the API sees it. */
export const payloadError = (text: string) => {
  if (text.trim() === "") return undefined
  try {
    JSON.parse(text)
    return undefined
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`
  }
}

/** A payload as the API holds it (JSON text, or a value) as the editor shows it. */
export const payloadText = (payload: unknown) =>
  payload === undefined || payload === null ? "" : typeof payload === "string" ? payload : JSON.stringify(payload)

/** One payload's JSON editor, its error (the browser's JSON parser's, then the API's) beside it. */
export const PayloadField = ({
  label,
  text,
  onChange,
  error,
  attr,
  placeholder = '{"color": "green"}'
}: {
  readonly placeholder?: string
  readonly label: string
  readonly text: string
  readonly onChange: (text: string) => void
  readonly error: unknown
  readonly attr: string
}) => {
  const invalid = payloadError(text)
  return (
    <>
      <label>
        {label}
        <textarea
          className="payload"
          rows={2}
          value={text}
          aria-invalid={invalid !== undefined}
          spellCheck={false}
          onChange={(event) => onChange(event.target.value)}
          placeholder={placeholder}
        />
      </label>
      {invalid && (
        <p role="alert" className="error field-error">
          {invalid}
        </p>
      )}
      <FieldError error={error} attr={attr} />
    </>
  )
}

/** A variant's key and its share of the rollout. */
export const VariantFields = ({
  index,
  variant,
  onKey,
  onSplit
}: {
  readonly index: number
  readonly variant: Variant
  readonly onKey: (key: string) => void
  readonly onSplit: (percentage: number) => void
}) => (
  <>
    <Field label={`Variant ${index + 1}: key`} value={variant.key} onChange={onKey} />
    <Field
      label={`Variant ${index + 1}: rollout %`}
      type="number"
      min={0}
      max={100}
      step="any"
      value={String(variant.rollout_percentage)}
      onChange={(text) => onSplit(Number(text))}
    />
  </>
)

/** The variants' split, marked unless it sums to 100. */
export const SplitTotal = ({ variants }: { readonly variants: ReadonlyArray<Variant> }) => {
  const total = variants.reduce((sum, variant) => sum + variant.rollout_percentage, 0)
  return <p className={Math.abs(total - 100) < 1e-9 ? "muted" : "error"}>Split: {total}% of 100%</p>
}

/** A multivariate flag's variants: key, rollout split (summing to 100) and JSON payload each. */
export const VariantsEditor = ({
  variants,
  payloads,
  onChange,
  error
}: {
  readonly variants: ReadonlyArray<Variant>
  readonly payloads: Readonly<Record<string, string>>
  readonly onChange: (variants: ReadonlyArray<Variant>, payloads: Readonly<Record<string, string>>) => void
  readonly error: unknown
}) => {
  return (
    <>
      <ItemList
        legend="Variants"
        noun="variant"
        items={variants}
        min={0}
        blank={{ key: `variant-${variants.length + 1}`, rollout_percentage: 0 }}
        onChange={(next) => onChange(next, payloads)}
      >
        {(variant, i, set) => (
          <div className="stack">
            <div className="toolbar">
              <VariantFields
                index={i}
                variant={variant}
                onKey={(key) => {
                  // The payload follows its variant's key.
                  const { [variant.key]: payload, ...rest } = payloads
                  onChange(
                    variants.map((other, j) => (j === i ? { ...variant, key } : other)),
                    payload === undefined ? rest : { ...rest, [key]: payload }
                  )
                }}
                onSplit={(rollout_percentage) => set({ ...variant, rollout_percentage })}
              />
            </div>
            <FieldError error={error} attr={`filters__multivariate__variants__${i}`} />
            <PayloadField
              label={`Variant ${i + 1}: payload (JSON)`}
              text={payloads[variant.key] ?? ""}
              onChange={(text) => onChange(variants, { ...payloads, [variant.key]: text })}
              error={error}
              attr={`filters__payloads__${variant.key}`}
            />
          </div>
        )}
      </ItemList>
      {variants.length > 0 && <SplitTotal variants={variants} />}
      <FieldError error={error} attr="filters__multivariate" exact />
    </>
  )
}

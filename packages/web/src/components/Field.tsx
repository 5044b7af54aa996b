import type { FormEvent, InputHTMLAttributes, ReactNode } from "react"

/** A labelled text input bound to a string. */
export const Field = ({
  label,
  value,
  onChange,
  ...input
}: { readonly label: string; readonly value: string; readonly onChange: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "value" | "onChange"
>) => (
  <label>
    {label}
    <input {...input} value={value} onChange={(event) => onChange(event.target.value)} />
  </label>
)

/** A form that submits through `onSubmit` without leaving the page. */
export const InlineForm = ({
  onSubmit,
  className = "inline-form",
  label,
  children
}: {
  readonly onSubmit: () => void
  readonly className?: string
  readonly label?: string
  readonly children: ReactNode
}) => (
  <form
    className={className}
    aria-label={label}
    onSubmit={(event: FormEvent) => {
      event.preventDefault()
      onSubmit()
    }}
  >
    {children}
  </form>
)

/** Filters that apply as they are typed. */
export const Filters = ({ label, children }: { readonly label: string; readonly children: ReactNode }) => (
  <InlineForm onSubmit={() => undefined} className="filters" label={label}>
    {children}
  </InlineForm>
)

/** A labelled choice among `options` (value → label). */
export const Choice = <V extends string>({
  label,
  value,
  options,
  onChange
}: {
  readonly label: string
  readonly value: V
  readonly options: Readonly<Record<V, string>>
  readonly onChange: (value: V) => void
}) => (
  <label>
    {label}
    <select value={value} onChange={(event) => onChange(event.target.value as V)}>
      {(Object.entries(options) as Array<[V, string]>).map(([option, text]) => (
        <option key={option} value={option}>
          {text}
        </option>
      ))}
    </select>
  </label>
)

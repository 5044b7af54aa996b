import { ApiError } from "../api.js"

/** Whether the API's refusal names field `attr` or one inside it (`filters__groups__0` holds
 * `filters__groups__0__rollout_percentage`). */
export const names = (error: unknown, attr: string) => {
  const named = error instanceof ApiError ? error.body.attr : undefined
  return typeof named === "string" && (named === attr || named.startsWith(`${attr}__`))
}

/** The API's refusal, beside the field it names (`exact`: that field itself, not one inside it). */
export const FieldError = ({
  error,
  attr,
  exact = false
}: {
  readonly error: unknown
  readonly attr: string
  readonly exact?: boolean
}) =>
  names(error, attr) && (!exact || (error as ApiError).body.attr === attr) ? (
    <p role="alert" className="error field-error">
      {(error as ApiError).message}
    </p>
  ) : null

/** The API's refusal when it names none of `attrs` (shown beside those): at the form's top. */
export const FormError = ({ error, attrs }: { readonly error: unknown; readonly attrs: ReadonlyArray<string> }) =>
  error instanceof Error && !attrs.some((attr) => names(error, attr)) ? (
    <p role="alert" className="error">
      {error.message}
    </p>
  ) : null

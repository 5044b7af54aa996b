import { Data } from "effect"

/** Input that breaks a rule: `code` and `detail` as a DRF validator reports them, `attr` the field's path. */
export class ValidationError extends Data.TaggedError("ValidationError")<{
  readonly code: string
  readonly detail: string
  readonly attr: string | null
}> {}

import { Effect, Schema } from "effect"
import { isStorableDate } from "../domain/dates.js"
import { parseDateText } from "../domain/dateText.js"
import { ValidationError } from "./ValidationError.js"

// Field checks shared by every wire shape: each failure carries the code a DRF validator reports.

/** Annotation carrying the error code a failed check reports (`blank`, `max_length`, `invalid_choice`, …). */
export const ErrorCode: unique symbol = Symbol.for("@zed/core/ErrorCode")

/** A check whose failure reports `code` and `detail`, as a DRF field validator would. */
export const check = <A>(predicate: (a: A) => boolean, code: string, detail: string | ((a: A) => string)) =>
  Schema.filter<Schema.Schema<A, any, never>>((a) => predicate(a), {
    message: (issue) => (typeof detail === "string" ? detail : detail(issue.actual as A)),
    [ErrorCode]: code
  })

/** A text field: not blank and at most `maxLength` characters. */
export const Text = (maxLength: number) =>
  Schema.String.pipe(
    check((s: string) => s.trim().length > 0, "blank", "This field may not be blank."),
    check(
      (s: string) => s.length <= maxLength,
      "max_length",
      `Ensure this field has no more than ${maxLength} characters.`
    )
  )

/** Range of a PostgreSQL `integer`: ids, counts and offsets are stored, or compared, as one. */
export const INT4_MIN = -2_147_483_648
export const INT4_MAX = 2_147_483_647

const inRange =
  (min: number, max: number) =>
  <S extends Schema.Schema<number, any, never>>(schema: S) =>
    schema.pipe(
      check((n: number) => n >= min, "min_value", `Ensure this value is greater than or equal to ${min}.`),
      check((n: number) => n <= max, "max_value", `Ensure this value is less than or equal to ${max}.`)
    )

/** A yes-or-no query parameter, as PostHog's clients send it. */
export const QueryFlag = Schema.Literal("true", "false", "1", "0")
export const isTrue = (flag: typeof QueryFlag.Type | undefined) => flag === "true" || flag === "1"

/** An integer given as text, as query and path parameters are; past `max` it is refused, not rounded. */
export const IntFromString = (min: number, max = INT4_MAX) =>
  Schema.NumberFromString.pipe(
    check((n: number) => Number.isInteger(n), "invalid_input", "A valid integer is required."),
    inRange(min, max)
  ).annotations({ jsonSchema: { type: "integer", minimum: min, maximum: max } })

/** An integer in a JSON body, within what its column holds (`max`, a PostgreSQL `integer` unless said). */
export const IntIn = (min: number, max = INT4_MAX) =>
  Schema.Int.pipe(inRange(min, max)).annotations({ jsonSchema: { type: "integer", minimum: min, maximum: max } })

/** A PostgreSQL `integer` in a JSON body (an order, say). */
export const Int4 = IntIn(INT4_MIN)

/** The id of a stored row in a path: one that does not parse, or lies outside its column's range, names nothing. */
export const PathId = IntFromString(1)

const INSTANT = "Expected an ISO 8601 date-time between the years 1 and 9999, e.g. 2024-01-31T12:00:00Z."

/** An instant given as text (ISO 8601), within the years every store holds. */
export const Instant = Schema.Date.annotations({ message: () => INSTANT })
  .pipe(check(isStorableDate, "invalid_input", INSTANT))
  .annotations({ jsonSchema: { type: "string", format: "date-time" } })

/**
 * A date as PostHog's date filters take it (2024-01-31, an ISO 8601 date-time, or relative: -7d) in
 * a project's time zone, within the years every store holds; else a 400 naming `attr`.
 */
export const dateInZone = (text: string, timezone: string, now: Date, attr: string) => {
  const ns = parseDateText(text, timezone, now)
  const date = ns === undefined ? undefined : new Date(Number(ns / 1_000_000n))
  return date !== undefined && isStorableDate(date)
    ? Effect.succeed(date)
    : Effect.fail(
        new ValidationError({
          code: "invalid_input",
          detail: `Expected a date (2024-01-31, 2024-01-31T12:00:00Z) or a relative date (-7d) within the years 1 to 9999, got "${text}".`,
          attr
        })
      )
}

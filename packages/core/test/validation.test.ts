import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { decode, IntFromString, Text } from "../src/api/validation.js"

const Body = Schema.Struct({
  name: Text(10),
  count: Schema.optional(Schema.Int),
  note: Schema.optional(Schema.NullOr(Schema.String)),
  nested: Schema.optional(Schema.Struct({ tags: Schema.Array(Schema.String) })),
  limit: Schema.optional(IntFromString(1))
})

const failure = (input: unknown) => {
  const result = Effect.runSync(Effect.either(decode(Body, input)))
  if (Either.isRight(result)) throw new Error("expected a failure")
  const { attr, code, detail } = result.left
  return { attr, code, detail }
}

describe("validation errors", () => {
  it("report the first problem with a DRF-style code and the field", () => {
    expect(failure({})).toEqual({ attr: "name", code: "required", detail: "This field is required." })
    expect(failure({ name: "" })).toEqual({ attr: "name", code: "blank", detail: "This field may not be blank." })
    expect(failure({ name: "x".repeat(11) })).toEqual({
      attr: "name",
      code: "max_length",
      detail: "Ensure this field has no more than 10 characters."
    })
    expect(failure({ name: null })).toEqual({ attr: "name", code: "null", detail: "This field may not be null." })
    expect(failure({ name: "a", count: "3" })).toEqual({ attr: "count", code: "invalid_input", detail: 'Expected a number, got "3".' })
    expect(failure({ name: "a", note: 4 })).toEqual({ attr: "note", code: "invalid_input", detail: "Expected a string or null, got 4." })
    expect(failure({ name: "a", limit: "0" })).toMatchObject({ attr: "limit", code: "min_value" })
    expect(failure({ name: "a", limit: "two" })).toMatchObject({ attr: "limit", code: "invalid_input" })
  })

  it("join nested paths with __", () => {
    expect(failure({ name: "a", nested: { tags: ["x", 2] } })).toMatchObject({ attr: "nested__tags__1", code: "invalid_input" })
  })

  it("name the shape when the body is not an object", () => {
    expect(failure([1])).toEqual({ attr: null, code: "invalid_input", detail: "Invalid data. Expected a dictionary, but got list." })
    expect(failure("text")).toEqual({ attr: null, code: "invalid_input", detail: "Invalid data. Expected a dictionary, but got str." })
  })

  it("accept valid input and ignore unknown fields", () => {
    expect(Effect.runSync(decode(Body, { name: "ok", id: 5, limit: "20" }))).toEqual({ name: "ok", limit: 20 })
  })
})

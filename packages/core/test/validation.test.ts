import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option, Schema, SchemaAST } from "effect"
import fc from "fast-check"
import { routes } from "../src/api/routes/index.js"
import { Instant, Int4, IntFromString, PathId, Text } from "../src/schema/fields.js"
import { decode, unstorableText } from "../src/schema/decode.js"

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
    expect(failure({ name: "a", count: "3" })).toEqual({
      attr: "count",
      code: "invalid_input",
      detail: 'Expected a number, got "3".'
    })
    expect(failure({ name: "a", note: 4 })).toEqual({
      attr: "note",
      code: "invalid_input",
      detail: "Expected a string or null, got 4."
    })
    expect(failure({ name: "a", limit: "0" })).toMatchObject({ attr: "limit", code: "min_value" })
    expect(failure({ name: "a", limit: "two" })).toMatchObject({ attr: "limit", code: "invalid_input" })
  })

  it("join nested paths with __", () => {
    expect(failure({ name: "a", nested: { tags: ["x", 2] } })).toMatchObject({
      attr: "nested__tags__1",
      code: "invalid_input"
    })
  })

  it("name the shape when the body is not an object", () => {
    expect(failure([1])).toEqual({
      attr: null,
      code: "invalid_input",
      detail: "Invalid data. Expected a dictionary, but got list."
    })
    expect(failure("text")).toEqual({
      attr: null,
      code: "invalid_input",
      detail: "Invalid data. Expected a dictionary, but got str."
    })
  })

  it("accept valid input and ignore unknown fields", () => {
    expect(Effect.runSync(decode(Body, { name: "ok", id: 5, limit: "20" }))).toEqual({ name: "ok", limit: 20 })
  })
})

const outcome = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown) =>
  Effect.runSync(
    Effect.either(decode(schema, input)).pipe(Effect.map(Either.mapLeft(({ attr, code }) => ({ attr, code }))))
  )

describe("input a store cannot hold", () => {
  it("integers past a PostgreSQL integer, or written as 1e20, are refused, not rounded", () => {
    const Query = Schema.Struct({ offset: IntFromString(0), id: Schema.optional(PathId), order: Schema.optional(Int4) })
    expect(outcome(Query, { offset: "2147483647" })).toEqual(Either.right({ offset: 2147483647 }))
    for (const offset of ["2147483648", "1e20", "99999999999999999999", "Infinity", "NaN", "1.5"]) {
      expect(outcome(Query, { offset })).toEqual(
        Either.left({ attr: "offset", code: expect.stringMatching(/^(max_value|invalid_input)$/) })
      )
    }
    expect(outcome(Query, { offset: "-1" })).toEqual(Either.left({ attr: "offset", code: "min_value" }))
    expect(outcome(Query, { offset: "0", id: "0" })).toEqual(Either.left({ attr: "id", code: "min_value" }))
    expect(outcome(Query, { offset: "0", order: -2147483649 })).toEqual(
      Either.left({ attr: "order", code: "min_value" })
    )
    expect(outcome(Query, { offset: "0", order: 2 ** 40 })).toEqual(Either.left({ attr: "order", code: "max_value" }))
  })

  it("dates outside the years 1 to 9999 are refused", () => {
    const Query = Schema.Struct({ after: Instant })
    expect(outcome(Query, { after: "9999-12-31T23:59:59Z" })).toEqual(
      Either.right({ after: new Date("9999-12-31T23:59:59Z") })
    )
    for (const after of ["-271821-04-20", "+275760-09-13T00:00:00Z", "0000-01-01", "10000-01-01", "yesterday", ""]) {
      expect(outcome(Query, { after })).toEqual(Either.left({ attr: "after", code: "invalid_input" }))
    }
  })

  it("NUL and lone surrogates are refused wherever they are, keys included, naming the field", () => {
    const Body = Schema.Struct({ name: Schema.String, filters: Schema.optional(Schema.Unknown) })
    expect(outcome(Body, { name: "a\u0000b" })).toEqual(
      Either.left({ attr: "name", code: "null_characters_not_allowed" })
    )
    expect(outcome(Body, { name: "a", filters: { values: [{ key: "\ud800" }] } })).toEqual(
      Either.left({ attr: "filters__values__0__key", code: "surrogate_characters_not_allowed" })
    )
    expect(outcome(Body, { name: "a", filters: { "k\u0000": 1 } })).toEqual(
      Either.left({ attr: "filters__k\u0000", code: "null_characters_not_allowed" })
    )
    expect(outcome(Body, { name: "\u{1F600} \uFFFD", filters: [["\ud83d\ude00"]] })).toMatchObject(
      Either.right({ name: "\u{1F600} \uFFFD" })
    )
  })

  it("are found however deep the JSON nests, and only there", () => {
    let deep: unknown = "\u0000"
    for (let i = 0; i < 100_000; i++) deep = [deep]
    expect(unstorableText(deep)?.path).toHaveLength(100_000)
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value)
        expect(unstorableText(value) === undefined).toBe(
          !text.includes("\\u0000") && text.isWellFormed() && !/\\ud[89a-f]/i.test(text)
        )
      })
    )
  })
})

/**
 * Where a route's input holds a date with no check of its range (PostgreSQL refuses year 0 and JavaScript's
 * extremes with a 5xx): every date is `Instant`'s, whose check follows it through annotations.
 */
const uncheckedDates = (
  ast: SchemaAST.AST,
  path: string,
  checked = false,
  seen = new Set<SchemaAST.AST>()
): Array<string> => {
  switch (ast._tag) {
    case "Refinement":
      return uncheckedDates(
        ast.from,
        path,
        checked || ast.filter === (Instant.ast as SchemaAST.Refinement).filter,
        seen
      )
    case "Transformation":
      return [...uncheckedDates(ast.from, path, checked, seen), ...uncheckedDates(ast.to, path, checked, seen)]
    case "Declaration":
      return !checked &&
        SchemaAST.getSchemaIdAnnotation(ast).pipe(Option.exists((id) => id === Schema.DateFromSelfSchemaId))
        ? [path]
        : []
    case "TypeLiteral":
      return [
        ...ast.propertySignatures.flatMap((p) => uncheckedDates(p.type, `${path}.${String(p.name)}`, false, seen)),
        ...ast.indexSignatures.flatMap((i) => uncheckedDates(i.type, `${path}[]`, false, seen))
      ]
    case "Union":
      return ast.types.flatMap((t) => uncheckedDates(t, path, checked, seen))
    case "TupleType":
      return [...ast.elements.map((e) => e.type), ...ast.rest.map((r) => r.type)].flatMap((t) =>
        uncheckedDates(t, `${path}[]`, false, seen)
      )
    case "Suspend":
      // Recursive schemas are walked once round.
      if (seen.has(ast)) return []
      seen.add(ast)
      return uncheckedDates(ast.f(), path, checked, seen)
    default:
      return []
  }
}

describe("every route's input", () => {
  it("takes dates only within the years stores hold", () => {
    const unchecked = routes.flatMap((route) =>
      (["params", "query", "body"] as const).flatMap((part) => {
        const schema = route.schemas[part]
        return schema === undefined ? [] : uncheckedDates(schema.ast, `${route.method} ${route.paths[0]} ${part}`)
      })
    )
    expect(unchecked).toEqual([])
  })
})

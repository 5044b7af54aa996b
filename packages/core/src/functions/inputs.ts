import { Effect, Schema } from "effect"
import { ValidationError } from "../schema/ValidationError.js"
import { isObject } from "../domain/json.js"
import { compileExpression } from "../hog/compile.js"
import type { StoredInput } from "../services/ZedFunctionStore.js"

// A function's inputs: `inputs_schema` declares them, `inputs` gives their values. Values are
// templates (`{event.properties.url}`), compiled once when saved and rendered per invocation.
// Secret inputs are kept apart from the others and answered only as `{"secret": true}`.

export const INPUT_TYPES = ["string", "number", "boolean", "dictionary", "choice", "json", "email"] as const

export const InputSchemaItem = Schema.Struct(
  {
    type: Schema.Literal(...INPUT_TYPES),
    key: Schema.String.pipe(
      Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "key must be a valid identifier." })
    ),
    label: Schema.optional(Schema.String),
    description: Schema.optional(Schema.String),
    choices: Schema.optional(Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Unknown }))),
    required: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    default: Schema.optional(Schema.Unknown),
    secret: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    hidden: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    templating: Schema.optional(Schema.Union(Schema.Boolean, Schema.Literal("hog")))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "FunctionInputSchema" })
export type InputSchemaItem = typeof InputSchemaItem.Type

export const InputsSchema = Schema.Array(InputSchemaItem).pipe(
  Schema.filter((items) => new Set(items.map((i) => i.key)).size === items.length, {
    message: () => "Input keys must be unique."
  })
)

export const InputValue = Schema.Struct({
  value: Schema.optional(Schema.Unknown),
  templating: Schema.optional(Schema.Literal("hog")),
  order: Schema.optional(Schema.Int),
  secret: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "FunctionInput" })

export const Inputs = Schema.Record({ key: Schema.String, value: InputValue })
export type Inputs = typeof Inputs.Type

/** What responses show of a secret input. */
export const SECRET_MASK = { secret: true } as const

const invalid = (key: string, detail: string) =>
  new ValidationError({ code: "invalid_input", detail, attr: `inputs__${key}` })

const empty = (value: unknown) => value === undefined || value === null || value === ""

const typeProblem = (item: InputSchemaItem, value: unknown): string | undefined => {
  switch (item.type) {
    case "string":
      return typeof value === "string" ? undefined : "Value must be a string."
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "Value must be a number."
    case "boolean":
      return typeof value === "boolean" ? undefined : "Value must be a boolean."
    case "dictionary":
    case "email":
      return isObject(value) ? undefined : "Value must be a dictionary."
    case "choice":
      return item.choices === undefined || item.choices.some((c) => c.value === value)
        ? undefined
        : "Value must be one of the choices."
    case "json":
      return undefined
  }
}

const quote = (text: string) => text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")

/**
 * Hog source for a templated value: strings are f-strings (a string that is one placeholder is
 * that expression, so `{event.properties}` gives the object itself), containers hold templated items.
 */
export const templateSource = (value: unknown): string => {
  if (typeof value === "string") {
    const whole = /^\{([^{}]+)\}$/.exec(value)
    return whole ? `(${whole[1]})` : `f'${quote(value)}'`
  }
  if (Array.isArray(value)) return `[${value.map(templateSource).join(", ")}]`
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `'${quote(k)}': ${templateSource(v)}`)
      .join(", ")}}`
  return value === undefined ? "null" : JSON.stringify(value)
}

const compiled = (item: InputSchemaItem, value: unknown): Effect.Effect<StoredInput, ValidationError> =>
  item.templating === false || typeof value === "number" || typeof value === "boolean" || value === null
    ? Effect.succeed({ value })
    : compileExpression(templateSource(value)).pipe(
        Effect.map((bytecode): StoredInput => ({ value, templating: "hog", bytecode })),
        Effect.mapError((error) => invalid(item.key, `Invalid template: ${error.message}`))
      )

/**
 * Validates `inputs` against `inputs_schema` and compiles them, splitting off the secret ones. A
 * secret input sent back as `{"secret": true}` keeps its stored value.
 */
export const compileInputs = (
  schema: ReadonlyArray<InputSchemaItem>,
  inputs: Inputs,
  stored: Readonly<Record<string, StoredInput>>
) =>
  Effect.gen(function* () {
    const known = new Set(schema.map((i) => i.key))
    const stray = Object.keys(inputs).find((key) => !known.has(key))
    if (stray !== undefined) return yield* invalid(stray, "This input is not in inputs_schema.")
    const plain: Record<string, StoredInput> = {}
    const secrets: Record<string, StoredInput> = {}
    for (const item of schema) {
      const given = inputs[item.key]
      const kept = item.secret && given?.secret === true && given.value === undefined ? stored[item.key] : undefined
      if (kept !== undefined) {
        secrets[item.key] = kept
        continue
      }
      const value = given === undefined || given.value === undefined ? item.default : given.value
      if (empty(value)) {
        if (item.required) return yield* invalid(item.key, "This field is required.")
        continue
      }
      const problem = typeProblem(item, value)
      if (problem !== undefined) return yield* invalid(item.key, problem)
      const input = yield* compiled(item, value)
      const ordered = given?.order === undefined ? input : { ...input, order: given.order }
      if (item.secret) secrets[item.key] = ordered
      else plain[item.key] = ordered
    }
    return { inputs: plain, secrets }
  })

/** Inputs as responses show them: values with their compiled bytecode, secrets masked. */
export const presentInputs = (
  inputs: Readonly<Record<string, StoredInput>>,
  secrets: Readonly<Record<string, StoredInput>>
) => ({
  ...inputs,
  ...Object.fromEntries(Object.keys(secrets).map((key) => [key, SECRET_MASK]))
})

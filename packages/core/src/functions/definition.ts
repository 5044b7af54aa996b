import { Effect, Schema } from "effect"
import { ValidationError } from "../schema/ValidationError.js"
import { toValidationError } from "../schema/decode.js"
import { compileExpression, compileProgram } from "../hog/compile.js"
import type { HogCompileError } from "../hog/errors.js"
import type { StoredFunction, StoredInput } from "../services/ZedFunctionStore.js"
import { FunctionFilters } from "./filters.js"
import { compileInputs, type Inputs, InputsSchema, SECRET_MASK, templateSource } from "./inputs.js"
import { Masking } from "./masking.js"

// Turning what a client sends into what is stored and run: code compiled to bytecode, inputs
// checked against their schema and compiled, filters and masking validated. Every failure is a 400
// naming the field, so nothing is stored that cannot run.

const invalid = (detail: string, attr: string) => new ValidationError({ code: "invalid_input", detail, attr })

const position = (error: HogCompileError) =>
  error.line === null ? "" : ` (line ${error.line}, column ${error.column})`

export const compileCode = (code: string) =>
  Effect.mapError(compileProgram(code), (error) =>
    invalid(`Hog code has errors: ${error.message}${position(error)}`, "code")
  )

const decodeField = <A, I>(schema: Schema.Schema<A, I>, value: unknown, attr: string) =>
  Effect.mapError(Schema.decodeUnknown(schema, { errors: "first", onExcessProperty: "error" })(value), (error) =>
    toValidationError(error, [attr])
  )

export const readFilters = (filters: unknown) =>
  filters === null || filters === undefined ? Effect.succeed(null) : decodeField(FunctionFilters, filters, "filters")

/** Masking with its hash template compiled. */
export const readMasking = (masking: unknown) =>
  Effect.gen(function* () {
    if (masking === null || masking === undefined) return null
    const decoded = yield* decodeField(Masking, masking, "masking")
    const bytecode = yield* Effect.mapError(compileExpression(templateSource(decoded.hash)), (error) =>
      invalid(`Invalid hash template: ${error.message}`, "masking__hash")
    )
    return { ...decoded, bytecode }
  })

export const readInputsSchema = (schema: unknown) => decodeField(InputsSchema, schema, "inputs_schema")

/** The inputs a client would send to keep the stored ones: values, and masks for secrets. */
export const storedInputsAsSent = (fn: Pick<StoredFunction, "inputs" | "secrets">): Inputs => ({
  ...Object.fromEntries(
    Object.entries(fn.inputs).map(([key, input]: [string, StoredInput]) => [
      key,
      { value: input.value, order: input.order }
    ])
  ),
  ...Object.fromEntries(Object.keys(fn.secrets).map((key) => [key, SECRET_MASK]))
})

export const readInputs = (schema: unknown, inputs: Inputs, stored: Readonly<Record<string, StoredInput>>) =>
  Effect.flatMap(readInputsSchema(schema), (items) =>
    Effect.map(compileInputs(items, inputs, stored), (compiled) => ({ ...compiled, inputs_schema: items }))
  )

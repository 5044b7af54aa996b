import { Data, Effect, Schema } from "effect"
import { toValidationError } from "../../schema/decode.js"

// Insight query nodes arrive as JSON: decoded with their schema, the failure said in words.

export class InsightQueryInvalid extends Data.TaggedError("InsightQueryInvalid")<{ readonly message: string }> {}

export const decodeNode = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, InsightQueryInvalid> =>
  Schema.decodeUnknown(schema, { errors: "first", onExcessProperty: "ignore" })(input).pipe(
    Effect.mapError((error) => {
      // The first problem, where it is: a node's full schema is too long to read in an error.
      const { attr, detail } = toValidationError(error)
      return new InsightQueryInvalid({ message: attr === null ? detail : `${attr}: ${detail}` })
    })
  )

export const invalid = (message: string) => Effect.fail(new InsightQueryInvalid({ message }))

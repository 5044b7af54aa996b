import { Effect, Option, Schema } from "effect"
import { isUuid } from "../../ingest/uuid.js"
import { displayName, type Person as StoredPerson, sortDistinctIds } from "../../persons/model.js"
import { ValidationError } from "../../schema/ValidationError.js"
import { PersonStore } from "../../services/PersonStore.js"
import { PageParams } from "../../domain/pagination.js"
import { NotFound } from "../errors.js"
import { PropertyFiltersParam } from "../propertyFiltersParam.js"

// Persons as the API shows them, and found by the id in a path.

export const Person = Schema.Struct({
  id: Schema.Int,
  uuid: Schema.UUID,
  name: Schema.String,
  distinct_ids: Schema.Array(Schema.String),
  properties: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  is_identified: Schema.Boolean,
  created_at: Schema.Date
}).annotations({ identifier: "Person" })

export const toWire = (person: StoredPerson): typeof Person.Type => ({
  id: person.id,
  uuid: person.uuid,
  name: displayName(person),
  distinct_ids: sortDistinctIds(person.distinct_ids),
  properties: person.properties,
  is_identified: person.is_identified,
  created_at: person.created_at
})

/** A person's numeric id or uuid; anything else is a distinct id passed in the wrong place. */
const personRef = (raw: string) =>
  /^\d{1,15}$/.test(raw)
    ? Effect.succeed({ id: Number(raw) })
    : isUuid(raw)
      ? Effect.succeed({ uuid: raw.toLowerCase() })
      : Effect.fail(
          new ValidationError({
            code: "invalid_input",
            detail:
              "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=X instead.",
            attr: null
          })
        )

export const findPerson = (projectId: number, raw: string) =>
  Effect.gen(function* () {
    const person = yield* (yield* PersonStore).get(projectId, yield* personRef(raw))
    return yield* Option.match(person, {
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  })

/** The persons list's filters (and page), as its query string has them: the list and persons exports take them. */
export const ListParams = PageParams.pipe(
  Schema.extend(
    Schema.Struct({
      distinct_id: Schema.optional(
        Schema.String.annotations({ description: "Only the person with this distinct id." })
      ),
      email: Schema.optional(Schema.String.annotations({ description: "Only persons with this `email` property." })),
      search: Schema.optional(
        Schema.String.annotations({ description: "A distinct id, or part of an e-mail or name." })
      ),
      properties: Schema.optional(PropertyFiltersParam)
    })
  )
)

import { Effect, Option, Schema } from "effect"
import type { Project } from "../domain/models.js"
import { experimentLock } from "../experiments/flagLock.js"
import { FlagDefinitions } from "../flags/definitions.js"
import type { FlagFilters } from "../flags/model.js"
import { FLAG_OPERATORS } from "../flags/properties.js"
import { type FlagPatch, FlagStore, type NewFlag } from "../services/FlagStore.js"
import type { StorageError } from "../services/StorageError.js"
import { checkCohortReferences } from "./cohortReferences.js"
import { NotFound } from "./errors.js"
import { ValidationError } from "../schema/ValidationError.js"
import { check } from "../schema/fields.js"

// Writing feature flags: the one validation of their keys and filters, and the one way to store
// them, for the flags API and for the flags other features create (survey targeting, early access).
// Every write invalidates the project's cached definitions so the next evaluation sees it.

const OPERATORS = new Set([...FLAG_OPERATORS, "in", "not_in", "flag_evaluates_to"])

const Percentage = Schema.Number.pipe(
  check(
    (n: number) => Number.isFinite(n) && n >= 0 && n <= 100,
    "invalid_input",
    "Invalid rollout percentage: it must be between 0 and 100."
  )
)

/** Keys are text; flag dependencies often arrive as the numeric flag id. */
const KeyText = Schema.transform(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (key) => String(key),
  encode: (key) => key
})

const PropertyFilter = Schema.Struct({
  key: KeyText,
  value: Schema.optional(Schema.Unknown),
  operator: Schema.optionalWith(
    Schema.String.pipe(
      check(
        (op: string) => OPERATORS.has(op),
        "invalid_input",
        (op: string) => `Unknown operator "${op}".`
      )
    ),
    { nullable: true }
  ),
  type: Schema.optional(Schema.Literal("person", "group", "cohort", "flag", "person_metadata")),
  group_type_index: Schema.optional(Schema.NullOr(Schema.Int)),
  negation: Schema.optional(Schema.Boolean)
})

const Condition = Schema.Struct({
  properties: Schema.optional(Schema.Array(PropertyFilter)),
  rollout_percentage: Schema.optional(Schema.NullOr(Percentage)),
  variant: Schema.optional(Schema.NullOr(Schema.String)),
  aggregation_group_type_index: Schema.optional(Schema.NullOr(Schema.Int))
})

const Variant = Schema.Struct({
  key: Schema.String.pipe(
    check(
      (k: string) => /^[A-Za-z0-9_-]+$/.test(k),
      "invalid_input",
      "Variant keys may hold only letters, digits, '-' and '_'."
    )
  ),
  name: Schema.optional(Schema.NullOr(Schema.String)),
  rollout_percentage: Percentage
})

type FiltersInput = Schema.Schema.Type<typeof FiltersFields>
const FiltersFields = Schema.Struct({
  aggregation_group_type_index: Schema.optional(Schema.NullOr(Schema.Int)),
  groups: Schema.optional(Schema.Array(Condition)),
  multivariate: Schema.optional(Schema.NullOr(Schema.Struct({ variants: Schema.Array(Variant) }))),
  payloads: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  super_groups: Schema.optional(Schema.Array(Condition)),
  feature_enrollment: Schema.optional(Schema.Boolean),
  holdout: Schema.optional(Schema.NullOr(Schema.Struct({ id: Schema.Int, exclusion_percentage: Percentage }))),
  holdout_groups: Schema.optional(Schema.NullOr(Schema.Array(Condition)))
})

const variantsOf = (f: FiltersInput) => f.multivariate?.variants ?? []

export const FlagFiltersSchema = FiltersFields.pipe(
  check(
    (f: FiltersInput) => {
      const variants = variantsOf(f)
      return variants.length === 0 || Math.abs(variants.reduce((sum, v) => sum + v.rollout_percentage, 0) - 100) < 1e-9
    },
    "invalid_input",
    "Invalid variant definitions: variant rollout percentages must sum to 100."
  ),
  check(
    (f: FiltersInput) => new Set(variantsOf(f).map((v) => v.key)).size === variantsOf(f).length,
    "invalid_input",
    "Invalid variant definitions: variant keys must be unique."
  ),
  check(
    (f: FiltersInput) =>
      (f.groups ?? []).every(
        (c) => c.variant === undefined || c.variant === null || variantsOf(f).some((v) => v.key === c.variant)
      ),
    "invalid_input",
    "A condition's variant must be one of the flag's variants."
  ),
  check(
    (f: FiltersInput) =>
      Object.keys(f.payloads ?? {}).every((k) => k === "true" || variantsOf(f).some((v) => v.key === k)),
    "invalid_input",
    'Payload keys must be variant keys, or "true" for a boolean flag.'
  )
).annotations({ identifier: "FlagFilters", description: "Conditions, variants, payloads: PostHog's flag filters." })

export const FlagKey = Schema.String.pipe(
  check(
    (k: string) => /^[A-Za-z0-9_-]+$/.test(k),
    "invalid_key",
    'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.'
  ),
  check((k: string) => k.length <= 400, "max_length", "Ensure this field has no more than 400 characters.")
)

const invalid = (detail: string, attr = "filters") => new ValidationError({ code: "invalid_input", detail, attr })

/** What only storage can tell: cohorts and flags named by the filters exist, and dependencies do not loop. */
const checkReferences = (project: Project, filters: FlagFilters, self: number | undefined) =>
  Effect.gen(function* () {
    const conditions = [...(filters.groups ?? []), ...(filters.super_groups ?? [])]
    const properties = conditions.flatMap((c) => c.properties ?? [])
    yield* checkCohortReferences(project.id, properties, "filters")
    const flags = yield* (yield* FlagStore).all(project.id)
    const byId = new Map(flags.map((f) => [f.id, f]))
    const dependsOn = (f: FlagFilters) =>
      (f.groups ?? [])
        .flatMap((c) => c.properties ?? [])
        .filter((p) => p.type === "flag")
        .map((p) => Number(p.key))
    for (const p of properties.filter((p) => p.type === "flag")) {
      const id = Number(p.key)
      if (!byId.has(id))
        return yield* invalid(`Flag dependency ${String(p.key)} does not exist: name dependencies by flag id.`)
    }
    // Walk what the flag would depend on: reaching itself again is a cycle.
    if (self !== undefined) {
      const seen = new Set<number>()
      const pending = dependsOn(filters)
      while (pending.length > 0) {
        const id = pending.pop()!
        if (id === self) return yield* invalid("Circular dependency: the flag would depend on itself.")
        if (seen.has(id)) continue
        seen.add(id)
        pending.push(...dependsOn(byId.get(id)?.filters ?? {}))
      }
    }
  })

/** A conflict on create or update is another live flag holding the key. */
const keyTaken = <A>(effect: Effect.Effect<A, StorageError | ValidationError>) =>
  Effect.catchIf(
    effect,
    (e) => e._tag === "StorageError" && e.conflict === true,
    () =>
      Effect.fail(
        new ValidationError({ code: "unique", detail: "There is already a feature flag with this key.", attr: "key" })
      )
  )

/** Creates a flag whose filters passed `FlagFiltersSchema`, once storage confirms what they name. */
export const createFlag = (project: Project, flag: NewFlag) =>
  Effect.gen(function* () {
    yield* checkReferences(project, flag.filters, undefined)
    const created = yield* keyTaken((yield* FlagStore).create(project.id, flag))
    yield* (yield* FlagDefinitions).invalidate(project.id)
    return created
  })

/** Updates a flag of the project; NotFound when it has none of this id. */
export const updateFlag = (project: Project, id: number, patch: FlagPatch) =>
  Effect.gen(function* () {
    if (patch.filters !== undefined) yield* checkReferences(project, patch.filters, id)
    const current = yield* (yield* FlagStore).get(project.id, id)
    const lock = Option.isSome(current) ? yield* experimentLock(project.id, current.value, patch) : undefined
    if (lock !== undefined) return yield* invalid(lock.detail, lock.attr)
    const updated = yield* keyTaken((yield* FlagStore).update(project.id, id, patch))
    yield* (yield* FlagDefinitions).invalidate(project.id)
    return yield* Option.match(updated, {
      onNone: () => Effect.fail(new NotFound({ detail: "Not found." })),
      onSome: Effect.succeed
    })
  })

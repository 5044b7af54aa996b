import { Record as Rec, Schema } from "effect"

// An entity's insert form: its fields, where those given a default may be left out (or undefined)
// and take it when decoded, so creating one needs only what has no default.

type Field = Schema.Schema.AnyNoContext

export type Defaults<F extends Record<string, Field>> = { readonly [K in keyof F]?: () => Schema.Schema.Type<F[K]> }

export type WithDefaults<F extends Record<string, Field>, D extends Defaults<F>> = {
  readonly [K in keyof F]: K extends keyof D
    ? Schema.optionalWith<F[K], { default: () => Schema.Schema.Type<F[K]> }>
    : F[K]
}

export const withDefaults = <F extends Record<string, Field>, const D extends Defaults<F>>(fields: F, defaults: D) =>
  Schema.Struct(
    // Record.map keeps the keys but not which of them became optional: the type says so instead.
    Rec.map(fields, (field, key) => {
      const value = defaults[key]
      return value === undefined ? field : Schema.optionalWith(field, { default: value })
    }) as unknown as WithDefaults<F, D>
  )

import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

/** What a property's values are, as ingestion first saw them (PostHog's `property_type`). */
export type PropertyType = "String" | "Numeric" | "Boolean" | "DateTime"

export type PropertyOwner = "event" | "person" | "group"

export interface PropertyDefinition {
  readonly owner: PropertyOwner
  readonly key: string
  readonly propertyType: PropertyType
  /** For group properties: the group type index. */
  readonly groupTypeIndex: number | null
}

/** The properties ingestion has seen per project, with their types; the first type seen for a key stays. */
export class PropertyDefinitions extends Context.Tag("@zed/core/PropertyDefinitions")<
  PropertyDefinitions,
  {
    /** Records definitions not known yet; known ones keep their type. Runs inside ingestion's transaction. */
    readonly record: (
      projectId: number,
      definitions: ReadonlyArray<PropertyDefinition>
    ) => Effect.Effect<void, StorageError>
    readonly list: (projectId: number) => Effect.Effect<ReadonlyArray<PropertyDefinition>, StorageError>
  }
>() {}

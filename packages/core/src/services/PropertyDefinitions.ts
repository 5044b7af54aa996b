import { Context, type Effect, type Option } from "effect"
import type {
  DefinitionPatch,
  PropertyDefinitionPatch,
  PropertyOwner,
  PropertyType,
  StoredEventDefinition,
  StoredPropertyDefinition
} from "../definitions/definitionEntity.js"
import type { StorageError } from "./StorageError.js"

export type { PropertyOwner, PropertyType }

/** A property as ingestion records it: its owner, key and the type of the first value seen. */
export interface PropertyDefinition {
  readonly owner: PropertyOwner
  readonly key: string
  readonly propertyType: PropertyType
  /** For group properties: the group type index. */
  readonly groupTypeIndex: number | null
}

/** An event name as ingestion saw it in one write: when, and the keys of its properties not linked to it yet. */
export interface SeenEvent {
  readonly name: string
  readonly seenAt: Date
  readonly properties: ReadonlyArray<string>
}

/**
 * The registry of what ingestion has seen per project: event names (with when last seen and which
 * properties came with them) and properties with their types (the first type seen for a key stays,
 * until a user changes it), each with what users describe it by.
 */
export class PropertyDefinitions extends Context.Tag("@zed/core/PropertyDefinitions")<
  PropertyDefinitions,
  {
    /** Records definitions not known yet; known ones keep their type. Runs inside ingestion's transaction. */
    readonly record: (
      projectId: number,
      definitions: ReadonlyArray<PropertyDefinition>
    ) => Effect.Effect<void, StorageError>
    /**
     * Records event names (a known one's last seen time only moves forward) and links each to the
     * property keys given. Runs inside ingestion's transaction.
     */
    readonly recordEvents: (projectId: number, events: ReadonlyArray<SeenEvent>) => Effect.Effect<void, StorageError>
    readonly list: (projectId: number) => Effect.Effect<ReadonlyArray<StoredPropertyDefinition>, StorageError>
    readonly listEvents: (projectId: number) => Effect.Effect<ReadonlyArray<StoredEventDefinition>, StorageError>
    /** The event property keys ever seen on any of these events. */
    readonly seenWith: (
      projectId: number,
      events: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlySet<string>, StorageError>
    readonly updateEvent: (
      projectId: number,
      id: string,
      patch: DefinitionPatch
    ) => Effect.Effect<Option.Option<StoredEventDefinition>, StorageError>
    readonly updateProperty: (
      projectId: number,
      id: string,
      patch: PropertyDefinitionPatch
    ) => Effect.Effect<Option.Option<StoredPropertyDefinition>, StorageError>
  }
>() {}

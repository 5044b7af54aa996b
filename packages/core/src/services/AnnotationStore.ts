import { Context, type Effect, type Option } from "effect"
import type { AnnotationPatch, NewAnnotation, StoredAnnotation } from "../annotations/annotationEntity.js"
import type { StorageError } from "./StorageError.js"

export type { AnnotationPatch, NewAnnotation, StoredAnnotation }

/** The project an annotation is read or written from: its own, and its organization's (for that scope). */
export interface AnnotationOwner {
  readonly projectId: number
  readonly organizationId: string
}

/** Which live annotations a list selects; every condition given must hold. */
export interface AnnotationQuery {
  /** Content holding this text, ignoring case. */
  readonly search?: string | undefined
  readonly scope?: string | undefined
  readonly dashboardItem?: number | undefined
  /** Dated at or after / at or before. */
  readonly dateFrom?: Date | undefined
  readonly dateTo?: Date | undefined
  /** Created after / before. */
  readonly after?: Date | undefined
  readonly before?: Date | undefined
  readonly limit: number
  readonly offset: number
}

/**
 * Annotations: a project's own, and its organization's (scope `organization`), which every project
 * of the organization sees. Deleted ones are kept, marked, and neither listed nor found.
 */
export class AnnotationStore extends Context.Tag("@zed/core/AnnotationStore")<
  AnnotationStore,
  {
    /** Latest date first (undated last), then newest. */
    readonly list: (
      owner: AnnotationOwner,
      query: AnnotationQuery
    ) => Effect.Effect<{ readonly count: number; readonly results: ReadonlyArray<StoredAnnotation> }, StorageError>
    readonly get: (owner: AnnotationOwner, id: number) => Effect.Effect<Option.Option<StoredAnnotation>, StorageError>
    readonly create: (
      owner: AnnotationOwner,
      annotation: NewAnnotation
    ) => Effect.Effect<StoredAnnotation, StorageError>
    readonly update: (
      owner: AnnotationOwner,
      id: number,
      patch: AnnotationPatch
    ) => Effect.Effect<Option.Option<StoredAnnotation>, StorageError>
  }
>() {}

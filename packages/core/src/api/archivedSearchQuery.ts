import { Schema } from "effect"
import { PageParams } from "../domain/pagination.js"

/** A list page of what can be archived and searched by name (experiments, surveys). */
export const ArchivedSearchQuery = PageParams.pipe(
  Schema.extend(
    Schema.Struct({
      archived: Schema.optional(Schema.Literal("true", "false")),
      search: Schema.optional(Schema.String)
    })
  )
)

/** The `archived` filter as the stores take it. */
export const archivedFilter = (archived: "true" | "false" | undefined): boolean | undefined =>
  archived === undefined ? undefined : archived === "true"

import { Effect, Schema } from "effect"
import { GroupStore } from "../../services/GroupStore.js"
import { environmentRoute } from "../route.js"

const GroupType = Schema.Struct({
  group_type: Schema.String,
  group_type_index: Schema.Int,
  name_singular: Schema.NullOr(Schema.String),
  name_plural: Schema.NullOr(Schema.String)
}).annotations({ identifier: "GroupType" })

export const groupTypesRoute = environmentRoute({
  method: "GET",
  path: "/groups_types",
  tag: "groups",
  summary: "List the project's group types",
  description: "Numbered in the order ingestion first saw them; at most five.",
  scope: "group:read",
  response: Schema.Array(GroupType),
  handler: ({ project }) =>
    Effect.map(
      Effect.flatMap(GroupStore, (s) => s.types(project.id)),
      (types) =>
        [...types]
          .map(([group_type, group_type_index]) => ({
            group_type,
            group_type_index,
            name_singular: null,
            name_plural: null
          }))
          .sort((a, b) => a.group_type_index - b.group_type_index)
    )
})

import { Effect, Option, Schema } from "effect"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { resolveProject } from "../auth.js"
import { AuthenticationFailed } from "../errors.js"
import { apiRoute } from "../route.js"
import { definitionsReply } from "../flagDefinitions.js"

// Server SDKs download flag definitions by project API key, authenticated with a personal API key:
// posthog-node 5.29.4 and later at /flags/definitions, earlier ones at /api/feature_flag/local_evaluation.

const Query = Schema.Struct({
  token: Schema.String.annotations({ description: "The project API key." }),
  send_cohorts: Schema.optional(
    Schema.String.annotations({ description: "Present: serve cohorts instead of inlining them." })
  )
})

const routeAt = (path: string, summary: string) =>
  apiRoute({
    method: "GET",
    path,
    tag: "feature flags",
    summary,
    description:
      "The project's flag definitions for local evaluation (as `…/feature_flags/local_evaluation`), with a weak ETag.",
    scope: "feature_flag:read",
    query: Query,
    handler: ({ principal, query, request }) =>
      Effect.gen(function* () {
        const found = yield* (yield* ProjectTokens).find(query.token)
        // A wrong token is a credential problem: 401 makes the SDKs back off instead of polling on.
        if (Option.isNone(found))
          return yield* new AuthenticationFailed({
            detail: "Project API key invalid. You can find your project API key in your Zed project settings."
          })
        // The same rules as a project route: the key must reach the project.
        const project = yield* resolveProject(principal, String(found.value.id))
        return yield* definitionsReply(request, project)
      })
  })

export const localEvaluationRoutes = [
  routeAt("/flags/definitions", "Flag definitions for local evaluation (posthog-node 5.29.4 and later)"),
  routeAt("/api/feature_flag/local_evaluation", "Flag definitions for local evaluation (older SDKs)")
]

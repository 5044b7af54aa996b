import { Effect, Option, Schema } from "effect"
import { createTemplateDashboard } from "../../insights/dashboardTemplate.js"
import { generateProjectApiKey } from "../../domain/keys.js"
import { Project, ProjectSettings } from "../../domain/models.js"
import { isTimeZone } from "../../domain/timezone.js"
import { ProjectTokens } from "../../ingest/projectTokens.js"
import { type ProjectPatch, ProjectStore } from "../../services/ProjectStore.js"
import { requireUnscopedKey } from "../auth.js"
import { NotFound } from "../errors.js"
import { PageParams, Paginated, paginated, toPage } from "../../domain/pagination.js"
import { apiRoute, environmentRoute } from "../route.js"
import { check, Text } from "../../schema/fields.js"

const TimeZone = Schema.String.pipe(
  check(isTimeZone, "invalid_choice", (tz: string) => `"${tz}" is not a valid choice.`)
).annotations({ description: "IANA time zone name, e.g. `Europe/Berlin`." })

const ProjectFields = Schema.Struct({
  name: Schema.optional(Text(200)),
  timezone: Schema.optional(TimeZone),
  test_account_filters: Schema.optional(Project.fields.test_account_filters)
}).pipe(Schema.extend(Schema.partial(ProjectSettings)))

const ProjectCreate = ProjectFields.annotations({ identifier: "ProjectCreate" })
const ProjectUpdate = ProjectFields.annotations({ identifier: "ProjectUpdate" })

const list = apiRoute({
  method: "GET",
  path: "/api/projects",
  tag: "projects",
  summary: "List projects",
  description: "Projects of the key owner's organization; a key limited to some projects sees only those.",
  scope: "project:read",
  query: PageParams,
  response: Paginated(Project, "PaginatedProjectList"),
  handler: ({ principal, query, request }) =>
    Effect.gen(function* () {
      const page = toPage(query)
      const { count, results } = yield* (yield* ProjectStore).list({
        organization: principal.user.organization_id,
        ids: principal.scoped_teams,
        ...page
      })
      return paginated(request.url, page, count, results)
    })
})

const create = apiRoute({
  method: "POST",
  path: "/api/projects",
  tag: "projects",
  summary: "Create a project",
  description:
    "Each project gets its own project API key, so one install serves many sites and apps, and a dashboard made from the template (see `use_template` on dashboards).",
  scope: "project:write",
  admin: true,
  body: ProjectCreate,
  response: Project,
  status: 201,
  handler: ({ body, principal }) =>
    Effect.gen(function* () {
      yield* requireUnscopedKey(principal)
      const { name, timezone, ...settings } = body
      const projects = yield* ProjectStore
      const project = yield* projects.create({
        organization: principal.user.organization_id,
        name: name ?? "Default project",
        timezone: timezone ?? "UTC",
        api_token: generateProjectApiKey()
      })
      // A new project starts with a dashboard that draws what posthog-js sends out of the box.
      yield* createTemplateDashboard(project.id, principal.user.id)
      return Object.keys(settings).length === 0
        ? project
        : Option.getOrElse(yield* projects.update(project.id, settings), () => project)
    })
})

const retrieve = environmentRoute({
  method: "GET",
  path: "",
  tag: "projects",
  summary: "Retrieve a project",
  scope: "project:read",
  response: Project,
  handler: ({ project }) => Effect.succeed(project)
})

/** Changes the project; capture and flags, which find projects by token through a cache, see it at once. */
const updateProject = (id: number, patch: ProjectPatch) =>
  Effect.gen(function* () {
    const updated = yield* (yield* ProjectStore).update(id, patch)
    yield* (yield* ProjectTokens).invalidate
    return yield* Option.match(updated, {
      onNone: () => Effect.fail(new NotFound({ detail: "Project not found." })),
      onSome: Effect.succeed
    })
  })

const update = environmentRoute({
  method: "PATCH",
  path: "",
  tag: "projects",
  summary: "Update a project",
  scope: "project:write",
  body: ProjectUpdate,
  response: Project,
  handler: ({ body, project }) => updateProject(project.id, body)
})

const resetToken = environmentRoute({
  method: "PATCH",
  path: "/reset_token",
  tag: "projects",
  summary: "Reset the project API key",
  description:
    "Gives the project a new project API key (`api_token`); SDKs still sending the old one are refused from then on. Organization admins and owners only.",
  scope: "project:write",
  admin: true,
  response: Project,
  handler: ({ project }) => updateProject(project.id, { api_token: generateProjectApiKey() })
})

export const projectRoutes = [list, create, retrieve, update, resetToken]

import { randomUUID } from "node:crypto"
import { Effect, Layer, Option } from "effect"
import {
  DEFAULT_SETTINGS,
  type Organization,
  type PersonalApiKey,
  type Project,
  type User
} from "../../domain/models.js"
import { ApiKeyStore } from "../ApiKeyStore.js"
import { OrganizationStore } from "../OrganizationStore.js"
import { ProjectStore } from "../ProjectStore.js"
import { Transactor } from "../Transactor.js"
import { UserStore } from "../UserStore.js"
import type { Journal } from "./journal.js"

// JavaScript runs one synchronous block at a time, so each `Effect.sync` below is already atomic.

export const makeMemoryAccounts = (journal: Journal) =>
  Effect.gen(function* () {
    const organizations = new Map<string, Organization>()
    const projects = new Map<number, Project>()
    const users = new Map<number, User>()
    const keys = new Map<string, PersonalApiKey>()
    let nextProjectId = 1
    let nextUserId = 1
    const transactions = yield* Effect.makeSemaphore(1)
    const exclusives = yield* Effect.makeSemaphore(1)

    const organizationStore = OrganizationStore.of({
      create: ({ name }) =>
        Effect.sync(() => {
          const org: Organization = { id: randomUUID(), name, flag_evaluation_quota: null, created_at: new Date() }
          journal.set(organizations, org.id, org)
          return org
        }),
      get: (id) => Effect.sync(() => Option.fromNullable(organizations.get(id))),
      update: (id, patch) =>
        Effect.sync(() => {
          const org = organizations.get(id)
          if (org === undefined) return Option.none()
          const next: Organization = {
            ...org,
            name: patch.name ?? org.name,
            flag_evaluation_quota:
              patch.flag_evaluation_quota === undefined ? org.flag_evaluation_quota : patch.flag_evaluation_quota
          }
          journal.set(organizations, id, next)
          return Option.some(next)
        }),
      any: Effect.sync(() => organizations.size > 0)
    })

    const projectStore = ProjectStore.of({
      create: (input) =>
        Effect.sync(() => {
          const id = nextProjectId++
          const now = new Date()
          const project: Project = {
            id,
            uuid: randomUUID(),
            organization: input.organization,
            project_id: id,
            api_token: input.api_token,
            name: input.name,
            timezone: input.timezone,
            is_demo: false,
            ingested_event: false,
            ...DEFAULT_SETTINGS,
            test_account_filters: [],
            created_at: now,
            updated_at: now
          }
          journal.set(projects, id, project)
          return project
        }),
      get: (id) => Effect.sync(() => Option.fromNullable(projects.get(id))),
      findByApiToken: (token) =>
        Effect.sync(() => Option.fromNullable([...projects.values()].find((p) => p.api_token === token))),
      markIngested: (id) =>
        Effect.sync(() => {
          const project = projects.get(id)
          if (project !== undefined && !project.ingested_event)
            journal.set(projects, id, { ...project, ingested_event: true })
        }),
      list: ({ ids, limit, offset, organization }) =>
        Effect.sync(() => {
          const all = [...projects.values()]
            .filter((p) => p.organization === organization && (ids === null || ids.includes(p.id)))
            .sort((a, b) => a.id - b.id)
          return { count: all.length, results: all.slice(offset, offset + limit) }
        }),
      update: (id, patch) =>
        Effect.sync(() => {
          const current = projects.get(id)
          if (current === undefined) return Option.none()
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          const next: Project = { ...current, ...defined, updated_at: new Date() }
          journal.set(projects, id, next)
          return Option.some(next)
        })
    })

    const userStore = UserStore.of({
      create: (input) =>
        Effect.sync(() => {
          const user: User = {
            id: nextUserId++,
            uuid: randomUUID(),
            distinct_id: randomUUID(),
            first_name: input.first_name,
            last_name: "",
            email: input.email,
            is_email_verified: false,
            hedgehog_config: null,
            role_at_organization: null,
            organization_id: input.organization_id,
            current_project_id: input.current_project_id,
            is_active: true
          }
          journal.set(users, user.id, user)
          return user
        }),
      get: (id) => Effect.sync(() => Option.fromNullable(users.get(id))),
      getMany: (ids) => Effect.sync(() => ids.flatMap((id) => users.get(id) ?? [])),
      findByEmail: (email) =>
        Effect.sync(() => Option.fromNullable([...users.values()].find((u) => u.email === email))),
      first: Effect.sync(() => Option.fromNullable(users.get(Math.min(...users.keys()))))
    })

    const apiKeyStore = ApiKeyStore.of({
      create: (input) =>
        Effect.sync(() => {
          const key: PersonalApiKey = { ...input, id: randomUUID(), created_at: new Date(), last_used_at: null }
          journal.set(keys, key.id, key)
          return key
        }),
      findBySecureValue: (secureValue) =>
        Effect.sync(() =>
          Option.fromNullable([...keys.values()].find((k) => k.secure_value === secureValue)).pipe(
            Option.flatMap((key) => Option.map(Option.fromNullable(users.get(key.user_id)), (user) => ({ key, user })))
          )
        ),
      markUsed: (id, at) =>
        Effect.sync(() => {
          const key = keys.get(id)
          if (key !== undefined) journal.set(keys, id, { ...key, last_used_at: at })
        })
    })

    const transactor = Transactor.of({
      concurrency: 1,
      soleWriter: true,
      transaction: (effect) => transactions.withPermits(1)(journal.transaction(effect)),
      exclusive: () => (effect) => exclusives.withPermits(1)(journal.transaction(effect))
    })

    return [
      Layer.succeed(OrganizationStore, organizationStore),
      Layer.succeed(ProjectStore, projectStore),
      Layer.succeed(UserStore, userStore),
      Layer.succeed(ApiKeyStore, apiKeyStore),
      Layer.succeed(Transactor, transactor)
    ] as const
  })

import { randomUUID } from "node:crypto"
import { Effect, Layer, Option } from "effect"
import {
  DEFAULT_SETTINGS,
  type Invite,
  type Organization,
  type PersonalApiKey,
  type Project,
  type User
} from "../../domain/models.js"
import { ApiKeyStore } from "../ApiKeyStore.js"
import { InviteStore } from "../InviteStore.js"
import { SessionStore } from "../SessionStore.js"
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
    const passwords = new Map<number, string>()
    const sessions = new Map<string, { readonly user_id: number; readonly expires_at: Date }>()
    const invites = new Map<string, Invite>()
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
            is_active: true,
            level: input.level,
            date_joined: new Date()
          }
          journal.set(users, user.id, user)
          if (input.password_hash != null) journal.set(passwords, user.id, input.password_hash)
          return user
        }),
      get: (id) => Effect.sync(() => Option.fromNullable(users.get(id))),
      getMany: (ids) => Effect.sync(() => ids.flatMap((id) => users.get(id) ?? [])),
      findByEmail: (email) =>
        Effect.sync(() => Option.fromNullable([...users.values()].find((u) => u.email === email))),
      first: Effect.sync(() => Option.fromNullable(users.get(Math.min(...users.keys())))),
      list: (organizationId) =>
        Effect.sync(() => [...users.values()].filter((u) => u.organization_id === organizationId && u.is_active)),
      update: (id, patch) =>
        Effect.sync(() => {
          const current = users.get(id)
          if (current === undefined) return Option.none()
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          const next: User = { ...current, ...defined }
          journal.set(users, id, next)
          return Option.some(next)
        }),
      passwordHash: (id) => Effect.sync(() => passwords.get(id) ?? null),
      setPasswordHash: (id, hash) => Effect.sync(() => journal.set(passwords, id, hash))
    })

    const ownKey = (userId: number, id: string) => {
      const key = keys.get(id)
      return key !== undefined && key.user_id === userId ? key : undefined
    }

    const apiKeyStore = ApiKeyStore.of({
      create: (input) =>
        Effect.sync(() => {
          const key: PersonalApiKey = {
            ...input,
            id: randomUUID(),
            created_at: new Date(),
            last_used_at: null,
            last_rolled_at: null
          }
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
        }),
      list: (userId) =>
        Effect.sync(() =>
          [...keys.values()]
            .filter((k) => k.user_id === userId)
            .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        ),
      get: (userId, id) => Effect.sync(() => Option.fromNullable(ownKey(userId, id))),
      update: (userId, id, patch) =>
        Effect.sync(() => {
          const key = ownKey(userId, id)
          if (key === undefined) return Option.none()
          const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined))
          const next: PersonalApiKey = { ...key, ...defined }
          journal.set(keys, id, next)
          return Option.some(next)
        }),
      remove: (userId, id) =>
        Effect.sync(() => {
          if (ownKey(userId, id) === undefined) return false
          journal.delete(keys, id)
          return true
        })
    })

    const sessionStore = SessionStore.of({
      create: ({ digest, expires_at, user_id }) =>
        Effect.sync(() => {
          const now = Date.now()
          for (const [d, s] of sessions) if (s.expires_at.getTime() <= now) journal.delete(sessions, d)
          journal.set(sessions, digest, { user_id, expires_at })
        }),
      find: (digest) =>
        Effect.sync(() => {
          const session = sessions.get(digest)
          const user = session && users.get(session.user_id)
          return user?.is_active ? Option.some({ user, expires_at: session!.expires_at }) : Option.none()
        }),
      remove: (digest) => Effect.sync(() => journal.delete(sessions, digest)),
      removeForUser: (userId) =>
        Effect.sync(() => {
          for (const [d, s] of sessions) if (s.user_id === userId) journal.delete(sessions, d)
        })
    })

    const inviteStore = InviteStore.of({
      create: (input) =>
        Effect.sync(() => {
          const invite: Invite = { ...input, id: randomUUID(), created_at: new Date() }
          journal.set(invites, invite.id, invite)
          return invite
        }),
      list: (organizationId) =>
        Effect.sync(() =>
          [...invites.values()]
            .filter((i) => i.organization_id === organizationId)
            .sort((a, b) => b.created_at.getTime() - a.created_at.getTime())
        ),
      get: (id) => Effect.sync(() => Option.fromNullable(invites.get(id))),
      remove: (id) =>
        Effect.sync(() => {
          if (!invites.has(id)) return false
          journal.delete(invites, id)
          return true
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
      Layer.succeed(SessionStore, sessionStore),
      Layer.succeed(InviteStore, inviteStore),
      Layer.succeed(Transactor, transactor)
    ] as const
  })

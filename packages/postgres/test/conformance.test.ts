import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { memoryStorage, type ZedStorage } from "@zed/core"
import {
  ApiKeyStore,
  InviteStore,
  MembershipLevel,
  OrganizationStore,
  ProjectStore,
  SessionStore,
  type StorageServices,
  StorageProbe,
  UserStore
} from "@zed/core/storage"
import { bootstrap } from "../../core/src/bootstrap.js"
import { Effect, ManagedRuntime, Option } from "effect"
import { pgliteStorage, postgresStorage, temporaryDatabase } from "../src/index.js"
import { TEST_SERVER_URL } from "./server.js"

// One suite, every storage backend: each must behave exactly like the others through the ports.

type Backend = { readonly storage: () => ZedStorage; readonly cleanup: () => Promise<void> }

const backends: Record<string, () => Promise<Backend>> = {
  memory: async () => {
    const storage = memoryStorage()
    return { storage: () => storage, cleanup: async () => {} }
  },
  pglite: async () => {
    const dir = mkdtempSync(join(tmpdir(), "zed-conformance-"))
    return {
      storage: () => pgliteStorage({ dataDir: join(dir, "pgdata") }),
      cleanup: async () => rmSync(dir, { recursive: true })
    }
  },
  postgres: async () => {
    const db = await temporaryDatabase(TEST_SERVER_URL)
    return { storage: () => postgresStorage({ url: db.url }), cleanup: db.drop }
  }
}

describe.each(Object.keys(backends))("%s storage", (name) => {
  let backend: Backend
  let runtime: ManagedRuntime.ManagedRuntime<StorageServices, unknown>
  const run = <A, E>(effect: Effect.Effect<A, E, StorageServices>) => runtime.runPromise(effect)

  beforeAll(async () => {
    backend = await backends[name]!()
    runtime = ManagedRuntime.make(backend.storage())
  })
  afterAll(async () => {
    await runtime.dispose()
    await backend.cleanup()
  })

  it("starts empty, and bootstraps exactly once however many start at the same time", async () => {
    expect(await run(Effect.flatMap(OrganizationStore, (o) => o.any))).toBe(false)
    const results = await run(
      Effect.all(
        Array.from({ length: 5 }, () => bootstrap({ adminEmail: "ada@example.com" })),
        { concurrency: "unbounded" }
      )
    )
    expect(results.filter((r) => r.created)).toHaveLength(1)
    const { credentials } = results.find((r) => r.created === true)! as Extract<
      (typeof results)[number],
      { created: true }
    >
    expect(credentials.project_id).toBe(1)
    expect(await run(Effect.flatMap(OrganizationStore, (o) => o.any))).toBe(true)
  })

  it("passes its readiness probe, again and again and at once", async () => {
    const { probe } = await run(StorageProbe)
    await run(probe)
    await run(
      Effect.all(
        Array.from({ length: 5 }, () => probe),
        { concurrency: "unbounded" }
      )
    )
  })

  it("keeps projects, finds them by id and project API key, and lists an organization's in pages", async () => {
    const projects = await run(ProjectStore)
    const first = Option.getOrThrow(await run(projects.get(1)))
    expect(first).toMatchObject({
      id: 1,
      project_id: 1,
      name: "Default project",
      timezone: "UTC",
      is_demo: false,
      ingested_event: false
    })
    expect(first.created_at).toBeInstanceOf(Date)
    expect(Option.getOrThrow(await run(projects.findByApiToken(first.api_token))).id).toBe(1)
    expect(Option.isNone(await run(projects.findByApiToken("phc_none")))).toBe(true)
    expect(Option.isNone(await run(projects.get(4242)))).toBe(true)

    const org = first.organization
    const created = []
    for (const i of [2, 3, 4]) {
      created.push(
        await run(
          projects.create({
            organization: org,
            name: `P${i}`,
            timezone: "Europe/Paris",
            api_token: `phc_conformance_${name}_${i}`
          })
        )
      )
    }
    expect(created.map((p) => p.id)).toEqual([2, 3, 4])
    const otherOrg = await run(Effect.flatMap(OrganizationStore, (o) => o.create({ name: "Other" })))
    await run(
      projects.create({ organization: otherOrg.id, name: "Elsewhere", timezone: "UTC", api_token: `phc_other_${name}` })
    )

    const page = await run(projects.list({ organization: org, ids: null, limit: 2, offset: 1 }))
    expect(page.count).toBe(4)
    expect(page.results.map((p) => p.id)).toEqual([2, 3])
    expect(await run(projects.list({ organization: org, ids: null, limit: 2, offset: 10 }))).toEqual({
      count: 4,
      results: []
    })
    const some = await run(projects.list({ organization: org, ids: [1, 3, 5], limit: 10, offset: 0 }))
    expect(some.results.map((p) => p.id)).toEqual([1, 3])
    expect(await run(projects.list({ organization: org, ids: [], limit: 10, offset: 0 }))).toEqual({
      count: 0,
      results: []
    })
    expect(
      (await run(projects.list({ organization: otherOrg.id, ids: null, limit: 10, offset: 0 }))).results.map(
        (p) => p.name
      )
    ).toEqual(["Elsewhere"])
  })

  it("updates only the fields given", async () => {
    const projects = await run(ProjectStore)
    const before = Option.getOrThrow(await run(projects.get(2)))
    const after = Option.getOrThrow(await run(projects.update(2, { name: "Renamed" })))
    expect(after).toEqual({ ...before, name: "Renamed", updated_at: after.updated_at })
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime())
    expect(Option.getOrThrow(await run(projects.update(2, { timezone: "Asia/Tokyo" }))).name).toBe("Renamed")
    expect(Option.isNone(await run(projects.update(4242, { name: "x" })))).toBe(true)
    // Reads after a write see it, whatever a store keeps between requests.
    expect(Option.getOrThrow(await run(projects.get(2)))).toMatchObject({ name: "Renamed", timezone: "Asia/Tokyo" })
  })

  it("keeps users and finds personal API keys by digest together with their owner", async () => {
    const users = await run(UserStore)
    const admin = Option.getOrThrow(await run(users.first))
    expect(admin).toMatchObject({
      email: "ada@example.com",
      current_project_id: 1,
      is_active: true,
      hedgehog_config: null
    })
    expect(Option.getOrThrow(await run(users.findByEmail("ada@example.com"))).id).toBe(admin.id)
    const second = await run(
      users.create({
        organization_id: admin.organization_id,
        email: "bo@example.com",
        first_name: "Bo",
        current_project_id: null,
        level: MembershipLevel.member
      })
    )
    expect(Option.getOrThrow(await run(users.get(second.id)))).toEqual(second)

    const keys = await run(ApiKeyStore)
    const key = await run(
      keys.create({
        user_id: second.id,
        label: "ci",
        mask_value: "phx_...abcd",
        secure_value: `sha256$${name}`,
        scopes: ["insight:read", "query:read"],
        scoped_teams: [1, 3],
        scoped_organizations: null
      })
    )
    expect(key).toMatchObject({ scopes: ["insight:read", "query:read"], scoped_teams: [1, 3], last_used_at: null })
    const found = Option.getOrThrow(await run(keys.findBySecureValue(`sha256$${name}`)))
    expect(found.key).toEqual(key)
    expect(found.user).toEqual(second)
    expect(Option.isNone(await run(keys.findBySecureValue("sha256$missing")))).toBe(true)

    const at = new Date("2026-01-02T03:04:05.000Z")
    await run(keys.markUsed(key.id, at))
    expect(Option.getOrThrow(await run(keys.findBySecureValue(`sha256$${name}`))).key.last_used_at).toEqual(at)
  })

  it("manages members, their keys, sessions and invitations", async () => {
    const users = await run(UserStore)
    const admin = Option.getOrThrow(await run(users.first))
    expect(admin.level).toBe(MembershipLevel.owner)
    expect(admin.date_joined).toBeInstanceOf(Date)
    expect(await run(users.passwordHash(admin.id))).toMatch(/^scrypt\$/)
    const bo = Option.getOrThrow(await run(users.findByEmail("bo@example.com")))
    expect(await run(users.passwordHash(bo.id))).toBeNull()
    await run(users.setPasswordHash(bo.id, "scrypt$x"))
    expect(await run(users.passwordHash(bo.id))).toBe("scrypt$x")
    const promoted = Option.getOrThrow(await run(users.update(bo.id, { level: MembershipLevel.admin, last_name: "B" })))
    expect(promoted).toMatchObject({ level: MembershipLevel.admin, last_name: "B", first_name: "Bo" })
    expect((await run(users.list(admin.organization_id))).map((u) => u.email)).toEqual([
      "ada@example.com",
      "bo@example.com"
    ])

    const keys = await run(ApiKeyStore)
    const [key] = await run(keys.list(bo.id))
    expect(Option.isNone(await run(keys.get(admin.id, key!.id)))).toBe(true)
    expect(Option.isNone(await run(keys.get(bo.id, "not-a-uuid")))).toBe(true)
    const rolled = Option.getOrThrow(
      await run(
        keys.update(bo.id, key!.id, { label: "rolled", scopes: ["*"], scoped_organizations: [admin.organization_id] })
      )
    )
    expect(rolled).toMatchObject({
      label: "rolled",
      scopes: ["*"],
      scoped_teams: [1, 3],
      scoped_organizations: [admin.organization_id]
    })
    expect(Option.isNone(await run(keys.update(admin.id, key!.id, { label: "theirs" })))).toBe(true)
    expect(await run(keys.remove(admin.id, key!.id))).toBe(false)
    expect(await run(keys.remove(bo.id, key!.id))).toBe(true)
    expect(await run(keys.list(bo.id))).toEqual([])

    const sessions = await run(SessionStore)
    const later = new Date(Date.now() + 60_000)
    await run(sessions.create({ digest: "sha256$a", user_id: bo.id, expires_at: later }))
    await run(sessions.create({ digest: "sha256$b", user_id: bo.id, expires_at: later }))
    expect(Option.getOrThrow(await run(sessions.find("sha256$a")))).toEqual({ user: promoted, expires_at: later })
    await run(sessions.remove("sha256$a"))
    expect(Option.isNone(await run(sessions.find("sha256$a")))).toBe(true)
    await run(users.update(bo.id, { is_active: false }))
    expect(Option.isNone(await run(sessions.find("sha256$b")))).toBe(true)
    expect((await run(users.list(admin.organization_id))).map((u) => u.email)).toEqual(["ada@example.com"])
    await run(users.update(bo.id, { is_active: true }))
    await run(sessions.removeForUser(bo.id))
    expect(Option.isNone(await run(sessions.find("sha256$b")))).toBe(true)

    const invites = await run(InviteStore)
    const invite = await run(
      invites.create({
        organization_id: admin.organization_id,
        target_email: "cy@example.com",
        first_name: "Cy",
        level: MembershipLevel.member,
        created_by: admin.id
      })
    )
    expect(invite).toMatchObject({
      target_email: "cy@example.com",
      level: MembershipLevel.member,
      created_by: admin.id
    })
    expect(Option.getOrThrow(await run(invites.get(invite.id)))).toEqual(invite)
    expect(await run(invites.list(admin.organization_id))).toEqual([invite])
    expect(Option.isNone(await run(invites.get("nope")))).toBe(true)
    expect(await run(invites.remove(invite.id))).toBe(true)
    expect(await run(invites.remove(invite.id))).toBe(false)
  })
})

describe("persistence", () => {
  it("PGlite keeps everything across a restart on the same directory, and refuses a second opener", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zed-restart-"))
    const dataDir = join(dir, "pgdata")
    try {
      const first = ManagedRuntime.make(pgliteStorage({ dataDir }))
      const created = await first.runPromise(bootstrap())
      expect(created.created).toBe(true)
      const second = ManagedRuntime.make(pgliteStorage({ dataDir }))
      await expect(second.runtime()).rejects.toThrow(/already open in this process/)
      await first.dispose()

      const again = ManagedRuntime.make(pgliteStorage({ dataDir }))
      expect(await again.runPromise(bootstrap())).toEqual({ created: false })
      const project = await again.runPromise(Effect.flatMap(ProjectStore, (p) => p.get(1)))
      expect(Option.getOrThrow(project).api_token).toBe(created.created && created.credentials.project_api_key)
      await again.dispose()
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  it("two instances on one PostgreSQL database bootstrap it once", async () => {
    const db = await temporaryDatabase(TEST_SERVER_URL)
    const a = ManagedRuntime.make(postgresStorage({ url: db.url }))
    const b = ManagedRuntime.make(postgresStorage({ url: db.url }))
    try {
      const results = await Promise.all([
        a.runPromise(bootstrap()),
        b.runPromise(bootstrap()),
        a.runPromise(bootstrap())
      ])
      expect(results.filter((r) => r.created)).toHaveLength(1)
    } finally {
      await a.dispose()
      await b.dispose()
      await db.drop()
    }
  })
})

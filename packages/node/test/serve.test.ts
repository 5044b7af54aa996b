import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { hashApiKey } from "../../core/src/domain/keys.js"
import { temporaryDatabase } from "@zed/postgres"
import pg from "pg"
import { TEST_SERVER_URL } from "../../postgres/test/server.js"
import { api, runZed, startZed } from "./processes.js"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "zed-serve-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const credentialsIn = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, "credentials.json"), "utf8"))

describe("zed serve on PGlite", () => {
  it("bootstraps on first start, writes credentials for the owner only, and keeps everything across restarts", async () => {
    const dataDir = join(tempDir(), "data")
    const first = await startZed({ ZED_DATA_DIR: dataDir })
    const credentials = credentialsIn(dataDir)
    expect(Object.keys(credentials).sort()).toEqual([
      "admin_email",
      "admin_password",
      "personal_api_key",
      "project_api_key",
      "project_id"
    ])
    expect(credentials.admin_email).toBe("admin@localhost")
    expect(first.output()).toContain(credentials.admin_password)
    expect(credentials.project_id).toBe(1)
    expect(credentials.project_api_key).toMatch(/^phc_/)
    expect(credentials.personal_api_key).toMatch(/^phx_/)
    expect(statSync(join(dataDir, "credentials.json")).mode & 0o777).toBe(0o600)
    expect(first.output()).toContain(credentials.personal_api_key)
    expect(first.output()).toContain(credentials.project_api_key)

    const created = await api(`${first.url}/api/projects/`, credentials.personal_api_key, {
      method: "POST",
      body: JSON.stringify({ name: "Kept" })
    })
    expect(created.status).toBe(201)
    expect(await first.stop()).toBe(0)
    expect(existsSync(join(dataDir, "pgdata.lock"))).toBe(false)

    const second = await startZed({ ZED_DATA_DIR: dataDir })
    try {
      expect(second.output()).not.toContain("set up a new install")
      expect(credentialsIn(dataDir)).toEqual(credentials)
      const list = await api(`${second.url}/api/projects/`, credentials.personal_api_key)
      expect(list.json.results.map((p: { name: string }) => p.name)).toEqual(["Default project", "Kept"])
    } finally {
      await second.stop()
    }
  })

  it("uses the keys given in the environment on first start", async () => {
    const dataDir = tempDir()
    const keys = {
      ZED_PROJECT_API_KEY: "phc_known_project_key_for_tests_0001",
      ZED_PERSONAL_API_KEY: "phx_known_personal_key_for_tests_0001",
      ZED_ADMIN_EMAIL: "Boss@Example.com",
      ZED_ADMIN_PASSWORD: "chosen by the operator"
    }
    const zed = await startZed({ ZED_DATA_DIR: dataDir, ...keys })
    try {
      expect(credentialsIn(dataDir)).toEqual({
        project_id: 1,
        project_api_key: keys.ZED_PROJECT_API_KEY,
        personal_api_key: keys.ZED_PERSONAL_API_KEY,
        admin_email: "boss@example.com"
      })
      expect(zed.output()).not.toContain(keys.ZED_ADMIN_PASSWORD)
      const login = await fetch(`${zed.url}/api/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "boss@example.com", password: keys.ZED_ADMIN_PASSWORD })
      })
      expect(login.status).toBe(200)
      const project = await api(`${zed.url}/api/projects/@current/`, keys.ZED_PERSONAL_API_KEY)
      expect(project.json.api_token).toBe(keys.ZED_PROJECT_API_KEY)
    } finally {
      await zed.stop()
    }
  })

  it("refuses malformed keys in the environment with a clear message", async () => {
    const result = await runZed(["serve"], { ZED_DATA_DIR: tempDir(), ZED_PERSONAL_API_KEY: "secret", PORT: "0" })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('the personal API key must start with "phx_"')
  })

  it("issues scoped keys from the command line, stored only as a hash", async () => {
    const dataDir = tempDir()
    const first = await startZed({ ZED_DATA_DIR: dataDir })
    const admin = credentialsIn(dataDir).personal_api_key
    await api(`${first.url}/api/projects/`, admin, { method: "POST", body: JSON.stringify({ name: "Second" }) })
    await first.stop()

    const issued = await runZed(["keys", "create", "--scopes", "insight:read,project:read", "--project", "1"], {
      ZED_DATA_DIR: dataDir
    })
    expect(issued.code).toBe(0)
    const key = issued.stdout.trim()
    expect(key).toMatch(/^phx_\w+$/)
    const bad = await runZed(["keys", "create", "--scopes", "insight:fly"], { ZED_DATA_DIR: dataDir })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("unknown scopes: insight:fly")

    const zed = await startZed({ ZED_DATA_DIR: dataDir })
    try {
      expect((await api(`${zed.url}/api/projects/1/`, key)).status).toBe(200)
      expect((await api(`${zed.url}/api/projects/2/`, key)).status).toBe(403)
      expect((await api(`${zed.url}/api/projects/1/`, key, { method: "PATCH", body: "{}" })).json.detail).toBe(
        "API key missing required scope 'project:write'"
      )
    } finally {
      await zed.stop()
    }
    // The database files hold the key's digest (the scan finds stored values) but never the key.
    const stored = filesUnder(join(dataDir, "pgdata")).map((file) => readFileSync(file, "latin1"))
    expect(stored.some((content) => content.includes(hashApiKey(key)))).toBe(true)
    expect(stored.some((content) => content.includes(key))).toBe(false)
  })
})

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : []
  )

describe("zed serve on PostgreSQL", () => {
  it("switches to the server named by DATABASE_URL, migrating it on start", async () => {
    const db = await temporaryDatabase(TEST_SERVER_URL)
    const dataDir = tempDir()
    try {
      const first = await startZed({ DATABASE_URL: db.url, ZED_DATA_DIR: dataDir })
      expect(first.output()).toContain("PostgreSQL")
      const { personal_api_key } = credentialsIn(dataDir)
      expect(
        (await api(`${first.url}/api/projects/`, personal_api_key, { method: "POST", body: '{"name":"On PG"}' })).status
      ).toBe(201)
      await first.stop()
      expect(existsSync(join(dataDir, "pgdata"))).toBe(false)

      const client = new pg.Client({ connectionString: db.url })
      await client.connect()
      const tables = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
      const stored = await client.query("SELECT secure_value FROM personal_api_keys")
      await client.end()
      expect(tables.rows.map((r) => r.tablename)).toEqual([
        "actions",
        "activity_log",
        "annotations",
        "cohort_members",
        "cohort_people",
        "cohorts",
        "dashboard_tiles",
        "dashboards",
        "early_access_features",
        "effect_sql_migrations",
        "event_definitions",
        "event_properties",
        "events",
        "experiment_holdouts",
        "experiments",
        "exported_asset_chunks",
        "exported_assets",
        "feature_flag_hash_key_overrides",
        "feature_flags",
        "function_logs",
        "function_metrics",
        "group_type_mappings",
        "groups",
        "heatmaps",
        "insights",
        "invites",
        "organization_usage",
        "organizations",
        "person_distinct_ids",
        "personal_api_keys",
        "persons",
        "plugin_configs",
        "projects",
        "property_definitions",
        "query_cache",
        "query_statuses",
        "readiness_probe",
        "recording_chunks",
        "recording_views",
        "session_recording_playlist_items",
        "session_recording_playlists",
        "session_recordings",
        "sessions",
        "sharing_configurations",
        "surveys",
        "users",
        "zed_functions"
      ])
      expect(stored.rows.map((r) => r.secure_value)).toEqual([expect.stringMatching(/^sha256\$[0-9a-f]{64}$/)])

      const second = await startZed({ DATABASE_URL: db.url, ZED_DATA_DIR: dataDir })
      try {
        const names = (await api(`${second.url}/api/projects/`, personal_api_key)).json.results.map(
          (p: { name: string }) => p.name
        )
        expect(names).toEqual(["Default project", "On PG"])
      } finally {
        await second.stop()
      }
    } finally {
      await db.drop()
    }
  })
})

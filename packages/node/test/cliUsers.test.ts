import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { api, runZed, startZed } from "./processes.js"

// `zed users` and `zed keys` while `zed serve` holds the PGlite directory (the CLI calls the running
// server) and after it stopped (the CLI opens the store itself).

const dir = mkdtempSync(join(tmpdir(), "zed-cli-users-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const login = async (url: string, email: string, password: string) =>
  (
    await fetch(`${url}/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password })
    })
  ).status

describe("zed users and zed keys", () => {
  it("manage users and keys through the running server, and on the store once it stopped", async () => {
    const env = { ZED_DATA_DIR: dir, ZED_ADMIN_PASSWORD: "the admin password" }
    const zed = await startZed(env)
    try {
      expect(existsSync(join(dir, "server.json"))).toBe(true)
      const created = await runZed(
        ["users", "create", "--email", "Ops@Zed.test", "--level", "admin", "--password", "ops password 1"],
        env
      )
      expect(created.code, created.stderr).toBe(0)
      expect(await login(zed.url, "ops@zed.test", "ops password 1")).toBe(200)

      const generated = await runZed(["users", "create", "--email", "gen@zed.test", "--first-name", "Gen"], env)
      expect(generated.code, generated.stderr).toBe(0)
      const [email, password] = generated.stdout.trim().split("\t")
      expect(email).toBe("gen@zed.test")
      expect(await login(zed.url, "gen@zed.test", password!)).toBe(200)
      expect((await runZed(["users", "create", "--email", "gen@zed.test"], env)).stderr).toContain("already exists")

      const listed = await runZed(["users", "list"], env)
      expect(listed.code).toBe(0)
      const rows = listed.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t").slice(0, 2))
      expect(rows).toEqual([
        ["admin@localhost", "owner"],
        ["ops@zed.test", "admin"],
        ["gen@zed.test", "member"]
      ])

      const reset = await runZed(
        ["users", "reset-password", "--email", "ops@zed.test", "--password", "ops password 2"],
        env
      )
      expect(reset.code, reset.stderr).toBe(0)
      expect(await login(zed.url, "ops@zed.test", "ops password 2")).toBe(200)
      expect(await login(zed.url, "ops@zed.test", "ops password 1")).toBe(400)

      const key = await runZed(["keys", "create", "--scopes", "project:read", "--project", "1"], env)
      expect(key.code, key.stderr).toBe(0)
      expect((await api(`${zed.url}/api/projects/1/`, key.stdout.trim())).status).toBe(200)
      const forOther = await runZed(["keys", "create", "--scopes", "*", "--user", "ops@zed.test"], env)
      expect(forOther.code).toBe(1)
      expect(forOther.stderr).toContain("stop the server")
    } finally {
      expect(await zed.stop()).toBe(0)
    }
    expect(existsSync(join(dir, "server.json"))).toBe(false)

    // Stopped: the same commands open the store, and may act for any user.
    const reset = await runZed(["users", "reset-password", "--email", "admin@localhost"], { ZED_DATA_DIR: dir })
    expect(reset.code, reset.stderr).toBe(0)
    const adminPassword = reset.stdout.trim().split("\t")[1]!
    const key = await runZed(["keys", "create", "--scopes", "insight:read", "--user", "ops@zed.test"], {
      ZED_DATA_DIR: dir
    })
    expect(key.code, key.stderr).toBe(0)
    const again = await startZed({ ZED_DATA_DIR: dir })
    try {
      expect(await login(again.url, "admin@localhost", adminPassword)).toBe(200)
      expect(await login(again.url, "admin@localhost", "the admin password")).toBe(400)
      const me = await api(`${again.url}/api/users/@me/`, key.stdout.trim())
      expect(me.status).toBe(403)
      const insights = await api(`${again.url}/api/projects/1/insights/`, key.stdout.trim())
      expect(insights.status).toBe(200)
    } finally {
      await again.stop()
    }
  }, 300_000)
})

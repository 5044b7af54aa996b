import { defineWorkspace } from "vitest/config"

// Workspace packages resolve to their TypeScript sources (the `source` export condition), so tests
// never run against a stale build.
const sources = { conditions: ["source", "import", "module", "node", "default"] }

const project = (name: string, root: string, include = "test/**/*.test.ts", timeout = 30_000) => ({
  resolve: sources,
  ssr: { resolve: { conditions: sources.conditions, externalConditions: ["source"] } },
  test: { name, root, include: [include], testTimeout: timeout, hookTimeout: 180_000 }
})

export default defineWorkspace([
  project("core", "packages/core"),
  project("postgres", "packages/postgres"),
  project("clickhouse", "packages/clickhouse", undefined, 60_000),
  project("node", "packages/node", undefined, 60_000),
  project("express", "packages/express"),
  project("next", "packages/next"),
  project("geoip", "packages/geoip"),
  project("examples", "examples", "*/test/**/*.test.ts", 60_000)
])

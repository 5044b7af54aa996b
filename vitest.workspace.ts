import { configDefaults, defineWorkspace } from "vitest/config"

// Workspace packages resolve to their TypeScript sources (the `source` export condition), so tests
// never run against a stale build.
const sources = { conditions: ["source", "import", "module", "node", "default"] }

// Tests that assert latency (`*.latency.test.ts`) would measure their neighbours' load: they form
// their own project, which `npm test` runs after the rest, alone. On a shared two-core machine a
// p99 of a few milliseconds can still catch one stall of the host (a disk flush, another tenant),
// so a latency test gets two more tries: a real regression fails every one of them.
const LATENCY = "**/*.latency.test.ts"

const project = (name: string, root: string, include = "test/**/*.test.ts", timeout = 30_000) => ({
  resolve: sources,
  ssr: { resolve: { conditions: sources.conditions, externalConditions: ["source"] } },
  test: {
    name,
    root,
    include: [include],
    exclude: include === LATENCY ? configDefaults.exclude : [...configDefaults.exclude, LATENCY],
    testTimeout: timeout,
    hookTimeout: 180_000,
    retry: include === LATENCY ? 2 : 0
  }
})

export default defineWorkspace([
  project("core", "packages/core"),
  project("postgres", "packages/postgres"),
  project("clickhouse", "packages/clickhouse", undefined, 60_000),
  project("node", "packages/node", undefined, 60_000),
  project("express", "packages/express"),
  project("next", "packages/next"),
  project("geoip", "packages/geoip"),
  project("web", "packages/web", undefined, 60_000),
  project("examples", "examples", "*/test/**/*.test.ts", 60_000),
  project("latency", "packages", LATENCY, 60_000)
])

import { defineConfig } from "vitest/config"

// Vitest runs files on one worker fewer than the cores: one file at a time on a 2-core machine, while
// most files spend much of their time waiting on servers, browsers and child processes. Two at once
// keep both cores busy; the projects are in vitest.workspace.ts.
export default defineConfig({ test: { maxWorkers: 2, minWorkers: 1 } })

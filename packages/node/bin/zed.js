#!/usr/bin/env node
// The `zed` command. It lives outside dist/ so that npm can link it at install time, before the
// package is built.
import { setFlagsFromString } from "node:v8"

// V8 lets a heap grow to several times what is live before collecting it: under steady ingest the
// server's main heap reached 200 MB with 50 MB live. The server trades a little speed for memory
// (docs/performance.md, Memory): heaps grow by a fifth past what is live, and V8 favours size where
// it can. Set before Zed's modules load, so that every heap of the process is sized by them.
if (process.argv[2] === "serve") {
  setFlagsFromString("--heap-growing-percent=20")
  setFlagsFromString("--optimize-for-size")
}

const { main } = await import("../dist/cli.js")
await main(process.argv.slice(2))

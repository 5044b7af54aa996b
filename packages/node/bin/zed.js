#!/usr/bin/env -S node --max-semi-space-size=4
// The `zed` command. It lives outside dist/ so that npm can link it at install time, before the
// package is built. A young generation of 4 MB semi-spaces (V8's default grows to 16) keeps a busy
// server's heap about 50 MB smaller; V8 reads that flag only when the process starts, hence here
// (docs/configuration.md#memory).
import { main } from "../dist/cli.js"

await main(process.argv.slice(2))
// A failed command ends now, even when what it tried left a socket open (a server that never answered).
if (process.exitCode) process.exit()

#!/usr/bin/env node
// The `zed` command. It lives outside dist/ so that npm can link it at install time, before the
// package is built.
import { main } from "../dist/cli.js"

await main(process.argv.slice(2))
// A failed command ends now, even when what it tried left a socket open (a server that never answered).
if (process.exitCode) process.exit()

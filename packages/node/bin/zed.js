#!/usr/bin/env node
// The `zed` command. It lives outside dist/ so that npm can link it at install time, before the
// package is built.
import { main } from "../dist/cli.js"

await main(process.argv.slice(2))

#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=2047
// The `zed` command. It lives outside dist/ so that npm can link it at install time, before the
// package is built. V8 reads its heap flags only when the process starts, hence here
// (docs/configuration.md#memory): a young generation of 4 MB semi-spaces (V8's default grows to
// 16), and an old generation limit just under 2 GB, below which V8 lets the heap grow to about
// twice its live size before collecting rather than four times.
import { main } from "../dist/cli.js"

await main(process.argv.slice(2))
// A failed command ends now, even when what it tried left a socket open (a server that never answered).
if (process.exitCode) process.exit()

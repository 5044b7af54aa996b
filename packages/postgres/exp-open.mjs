import { PGlite } from "@electric-sql/pglite"
const rss = () => Math.round(process.memoryUsage().rss/1e6)
const settings = process.argv.slice(2).flatMap((s) => ["-c", s])
const wasm = (db) => Math.round((db.mod.HEAPU8?.length ?? 0)/1e6)
const db = await PGlite.create("/tmp/memprobe/exp", { startParams: [...PGlite.defaultStartParams, ...settings] })
console.log("open", rss(), "wasm", wasm(db), JSON.stringify(process.memoryUsage()))
for (let q = 0; q < 5; q++) await db.query("select props->>'$browser' b, count(*), count(distinct uuid) from ev where event='$pageview' group by b order by 2 desc")
console.log("queried", rss(), "wasm", wasm(db))
await db.close(); process.exit(0)

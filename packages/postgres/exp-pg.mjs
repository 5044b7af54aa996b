import { PGlite } from "@electric-sql/pglite"
import { rmSync } from "node:fs"
const rss = () => Math.round(process.memoryUsage().rss/1e6)
const extra = process.argv.slice(2)
const dir = "/tmp/memprobe/exp"
rmSync(dir, { recursive: true, force: true })
const settings = extra.flatMap((s) => ["-c", s])
const init = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...settings] })
console.log("after initdb", rss(), "wasm", Math.round((init.mod.HEAPU8?.length ?? init.mod.wasmMemory?.buffer.byteLength ?? 0)/1e6))
await init.close()
globalThis.gc?.()
await new Promise(r=>setTimeout(r,100))
globalThis.gc?.()
console.log("closed", rss())
const db = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...settings] })
console.log("reopened", rss(), "wasm", Math.round((db.mod.HEAPU8?.length ?? db.mod.wasmMemory?.buffer.byteLength ?? 0)/1e6))
await db.exec("create table ev (id serial primary key, uuid text, event text, props jsonb, ts timestamptz); create index on ev(event, ts)")
for (let b = 0; b < 1000; b++) {
  const values = Array.from({length: 100}, (_, i) => `('${b}-${i}', '${i%10?'$pageview':'signed_up'}', '{"$browser":"Chrome","price":${i},"$current_url":"https://shop.example/products/${i}"}', now())`).join(",")
  await db.exec(`insert into ev (uuid, event, props, ts) values ${values}`)
}
console.log("inserted 100k", rss(), "wasm", Math.round((db.mod.HEAPU8?.length ?? db.mod.wasmMemory?.buffer.byteLength ?? 0)/1e6))
for (let q = 0; q < 5; q++) await db.query("select props->>'$browser' b, count(*), count(distinct uuid) from ev where event='$pageview' group by b order by 2 desc")
console.log("queried", rss(), "wasm", Math.round((db.mod.HEAPU8?.length ?? db.mod.wasmMemory?.buffer.byteLength ?? 0)/1e6))
const r = await db.query("select name, setting from pg_settings where name in ('shared_buffers','work_mem','wal_buffers','temp_buffers','maintenance_work_mem')")
console.log(JSON.stringify(r.rows.map(x=>x.name+"="+x.setting)))

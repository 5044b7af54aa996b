import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { createApp } from "./app.js"

const { app, zed } = createApp({
  storage: process.env.DATABASE_URL
    ? postgresStorage({ url: process.env.DATABASE_URL })
    : pgliteStorage({ dataDir: process.env.ZED_DATA_DIR ?? ".zed/pgdata" }),
  bootstrap: { personalApiKey: process.env.ZED_PERSONAL_API_KEY, projectApiKey: process.env.ZED_PROJECT_API_KEY }
})

const { bootstrap } = await zed
if (bootstrap.created) console.log("Zed credentials (shown once):", bootstrap.credentials)
const server = app.listen(Number(process.env.PORT ?? 3000), () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`)
)
const stop = () => server.close(() => zed.then((z) => z.close()).then(() => process.exit(0)))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)

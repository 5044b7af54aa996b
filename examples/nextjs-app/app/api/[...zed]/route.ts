import { createZed } from "@zed/core"
import { zedRouteHandlers } from "@zed/next"
import { pgliteStorage, postgresStorage } from "@zed/postgres"

// Zed's management API at /api/…: /api/projects/, /api/environments/:id/…, /api/schema/.
export const dynamic = "force-dynamic"

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = zedRouteHandlers(() =>
  createZed({
    storage: process.env.DATABASE_URL
      ? postgresStorage({ url: process.env.DATABASE_URL })
      : pgliteStorage({ dataDir: process.env.ZED_DATA_DIR ?? ".zed/pgdata" }),
    bootstrap: {
      projectApiKey: process.env.ZED_PROJECT_API_KEY,
      personalApiKey: process.env.ZED_PERSONAL_API_KEY
    }
  })
)

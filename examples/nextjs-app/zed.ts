import { createZed } from "@zed/core"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { SESSION_COOKIE, sessionUser } from "./session"

/** This app's Zed: both route files serve the same instance (`@zed/next` keeps one per name). */
export const createAppZed = () =>
  createZed({
    storage: process.env.DATABASE_URL
      ? postgresStorage({ url: process.env.DATABASE_URL })
      : pgliteStorage({ dataDir: process.env.ZED_DATA_DIR ?? ".zed/pgdata" }),
    bootstrap: {
      projectApiKey: process.env.ZED_PROJECT_API_KEY,
      personalApiKey: process.env.ZED_PERSONAL_API_KEY,
      adminEmail: process.env.ZED_ADMIN_EMAIL,
      adminPassword: process.env.ZED_ADMIN_PASSWORD
    },
    // Users signed in to this app are signed in to Zed (and its web app) as themselves.
    authenticate: async ({ cookies }) => {
      const email = sessionUser(cookies[SESSION_COOKIE])
      return email === undefined ? undefined : { email }
    }
  })

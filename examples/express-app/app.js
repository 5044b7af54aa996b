import { randomBytes } from "node:crypto"
import { createZed } from "@zed/core"
import { zedMiddleware } from "@zed/express"
import express from "express"

/**
 * An existing Express app that mounts Zed under /analytics beside its own routes. The app signs its
 * users in itself (here a toy session store; yours is whatever you already use), and Zed trusts that
 * sign-in through `authenticate`: a signed-in shop user opens Zed's app with no second login.
 */
export const createApp = (zedOptions) => {
  const sessions = new Map()
  const zed = createZed({
    ...zedOptions,
    authenticate: async ({ cookies }) => sessions.get(cookies.shop_session)
  })
  const app = express()
  app.use(express.json())
  app.get("/", (_req, res) => res.json({ app: "my shop", analytics: "/analytics/api/" }))
  // The shop's own sign-in (no password check in this toy): a session cookie of its own.
  app.post("/login", (req, res) => {
    const token = randomBytes(32).toString("base64url")
    sessions.set(token, { email: req.body.email, first_name: req.body.name })
    res.setHeader("set-cookie", `shop_session=${token}; HttpOnly; SameSite=Lax; Path=/`)
    res.status(204).end()
  })
  app.use("/analytics", zedMiddleware(zed))
  return { app, zed }
}

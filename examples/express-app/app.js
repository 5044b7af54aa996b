import { createZed } from "@zed/core"
import { zedMiddleware } from "@zed/express"
import express from "express"

/** An existing Express app that mounts Zed under /analytics beside its own routes. */
export const createApp = (zedOptions) => {
  const zed = createZed(zedOptions)
  const app = express()
  app.use(express.json())
  app.get("/", (_req, res) => res.json({ app: "my shop", analytics: "/analytics/api/" }))
  app.use("/analytics", zedMiddleware(zed))
  return { app, zed }
}

import { zedRouteHandlers } from "@zed/next"
import { createAppZed } from "../../../zed"

// Zed's management API at /api/…: /api/projects/, /api/environments/:id/…, /api/schema/.
export const dynamic = "force-dynamic"

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = zedRouteHandlers(createAppZed)

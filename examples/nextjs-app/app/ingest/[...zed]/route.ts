import { zedRouteHandlers } from "@zed/next"
import { createAppZed } from "../../../zed"

// Everything of Zed under /ingest/, for the SDKs: posthog-js with `api_host: "<this site>/ingest"`
// sends events, asks for flags and loads its extensions (/ingest/static/…) here.
export const dynamic = "force-dynamic"

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = zedRouteHandlers(createAppZed, { basePath: "/ingest" })

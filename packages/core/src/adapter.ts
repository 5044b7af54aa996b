// `@zed/core/adapter`: what an HTTP adapter needs to mount Zed in a server or framework — the
// framework-neutral request and reply, and their conversions for node:http and the Fetch API.

export { type ErrorBody, errorReply } from "./api/errors.js"
export { type App, makeApp } from "./api/handler.js"
export { fromNodeRequest, type NodeRequestOptions, writeNodeReply } from "./api/node.js"
export { Reply } from "./api/reply.js"
export { BodyTooLargeError, routePath, type ZedRequest } from "./api/request.js"
export type { Route } from "./api/route.js"
export { routes } from "./api/routes/index.js"
export { fromWebRequest, toWebResponse, type WebRequestOptions } from "./api/web.js"
export type { Zed } from "./createZed.js"

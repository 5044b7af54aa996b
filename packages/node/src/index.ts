export { loadConfig, ServerConfig, storageFor } from "./config.js"
export { renderMarkdown } from "./openapiMarkdown.js"
export { type Running, serve, writeCredentials } from "./serve.js"
export { leanWasmCompilation } from "@zed/postgres"

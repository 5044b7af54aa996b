export * from "./compile.js"
export * from "./errors.js"
export * from "./run.js"

/** @type {import("next").NextConfig} */
export default {
  // PostHog SDKs call paths with a trailing slash (/batch/, /api/projects/); answer them as they are
  // rather than redirecting.
  skipTrailingSlashRedirect: true,
  // Zed and its embedded database (PGlite, WebAssembly) load from node_modules at run time rather
  // than being bundled.
  serverExternalPackages: ["@zed/core", "@zed/postgres", "@zed/next", "@electric-sql/pglite"]
}

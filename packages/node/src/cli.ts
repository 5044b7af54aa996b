import { writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { createZed, issuePersonalApiKey, openApiDocument, routes, VERSION } from "@zed/core"
import { loadConfig, storageFor } from "./config.js"
import { renderMarkdown } from "./openapiMarkdown.js"
import { serve } from "./serve.js"

const usage = `Usage:
  zed serve                                   start the server (PORT, ZED_DATA_DIR, DATABASE_URL, …)
  zed keys create --scopes <a:read,b:write|*> [--project <id>]… [--label <text>] [--user <email>]
                                              issue a personal API key (printed once)
  zed openapi [--json <file>] [--markdown <file>]
                                              write the API reference (stdout when no file is given)`

const commands: Record<string, (args: Array<string>) => Promise<void>> = {
  serve: async () => {
    const running = await serve(await loadConfig())
    const stop = () => void running.close().then(() => process.exit(0))
    process.once("SIGINT", stop)
    process.once("SIGTERM", stop)
  },

  keys: async (args) => {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        scopes: { type: "string" },
        project: { type: "string", multiple: true },
        label: { type: "string" },
        user: { type: "string" }
      }
    })
    if (positionals[0] !== "create" || values.scopes === undefined) throw new UsageError()
    const projects = values.project?.flatMap((p) => p.split(",")).map((p) => {
      if (!/^\d+$/.test(p)) throw new UsageError(`--project takes project ids, not "${p}"`)
      return Number(p)
    })
    const zed = await createZed({ storage: storageFor(await loadConfig()), bootstrap: false })
    try {
      const { key, value } = await zed.run(issuePersonalApiKey({
        scopes: values.scopes.split(",").map((s) => s.trim()).filter((s) => s !== ""),
        projects,
        label: values.label,
        userEmail: values.user
      }))
      console.log(value)
      console.error(`scopes ${key.scopes.join(",")}; projects ${key.scoped_teams?.join(",") ?? "all"}; shown once, stored as a hash`)
    } finally {
      await zed.close()
    }
  },

  openapi: async (args) => {
    const { values } = parseArgs({ args, options: { json: { type: "string" }, markdown: { type: "string" } } })
    const doc = openApiDocument(routes, VERSION)
    if (values.json) writeFileSync(values.json, JSON.stringify(doc, null, 2) + "\n")
    if (values.markdown) writeFileSync(values.markdown, renderMarkdown(doc) + "\n")
    if (!values.json && !values.markdown) console.log(JSON.stringify(doc, null, 2))
  }
}

class UsageError extends Error {}

export const main = async (argv: Array<string>): Promise<void> => {
  const [command = "", ...args] = argv
  const run = commands[command]
  try {
    if (run === undefined) throw new UsageError(command === "" ? "" : `unknown command "${command}"`)
    await run(args)
  } catch (error) {
    process.exitCode = 1
    if (error instanceof UsageError) console.error([error.message, usage].filter((s) => s !== "").join("\n"))
    else console.error(`zed ${command}: ${(error as { message?: string }).message ?? String(error)}`)
  }
}

import { join } from "node:path"
import type { ZedStorage } from "@zed/core"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { Config, Effect, Option } from "effect"

/** The standalone server's settings, from the environment. */
export const ServerConfig = Config.all({
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be a port number (0 picks a free one)", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(8000)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  dataDir: Config.string("ZED_DATA_DIR").pipe(Config.withDefault(".zed")),
  databaseUrl: Config.option(Config.string("DATABASE_URL")),
  projectApiKey: Config.option(Config.string("ZED_PROJECT_API_KEY")),
  personalApiKey: Config.option(Config.string("ZED_PERSONAL_API_KEY")),
  adminEmail: Config.option(Config.string("ZED_ADMIN_EMAIL")),
  trustProxy: Config.boolean("ZED_TRUST_PROXY").pipe(Config.withDefault(false)),
  geoip: Config.boolean("ZED_GEOIP").pipe(Config.withDefault(true))
})

export type ServerConfig = Config.Config.Success<typeof ServerConfig>

export const loadConfig = (): Promise<ServerConfig> => Effect.runPromise(ServerConfig)

/** PostgreSQL when `DATABASE_URL` is set, else the embedded PGlite store under the data directory. */
export const storageFor = (config: Pick<ServerConfig, "databaseUrl" | "dataDir">): ZedStorage =>
  Option.match(config.databaseUrl, {
    onSome: (url) => postgresStorage({ url }),
    onNone: () => pgliteStorage({ dataDir: join(config.dataDir, "pgdata") })
  })

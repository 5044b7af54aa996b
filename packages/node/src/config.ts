import { join } from "node:path"
import { chdbClickHouse, clickhouseStorage, httpClickHouse } from "@zed/clickhouse"
import { DEFAULT_LIMITS, DEFAULT_SHUTDOWN_GRACE_MS, type ZedStorage } from "@zed/core"
import { pgliteStorage, postgresStorage } from "@zed/postgres"
import { Config, Effect, Option } from "effect"

/** A positive integer from the environment, `fallback` when unset. */
const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({
      message: `${name} must be a positive integer`,
      validation: (n) => Number.isSafeInteger(n) && n > 0
    }),
    Config.withDefault(fallback)
  )

const { bodyBytes } = DEFAULT_LIMITS

/** The standalone server's settings, from the environment. */
export const ServerConfig = Config.all({
  port: Config.integer("PORT").pipe(
    Config.validate({
      message: "PORT must be a port number (0 picks a free one)",
      validation: (n) => n >= 0 && n <= 65535
    }),
    Config.withDefault(8000)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  dataDir: Config.string("ZED_DATA_DIR").pipe(Config.withDefault(".zed")),
  databaseUrl: Config.option(Config.string("DATABASE_URL")),
  clickhouseUrl: Config.option(Config.string("CLICKHOUSE_URL")),
  clickhouseCluster: Config.option(Config.string("CLICKHOUSE_CLUSTER")),
  events: Config.literal("postgres", "chdb")("ZED_EVENTS").pipe(Config.withDefault("postgres" as const)),
  projectApiKey: Config.option(Config.string("ZED_PROJECT_API_KEY")),
  personalApiKey: Config.option(Config.string("ZED_PERSONAL_API_KEY")),
  adminEmail: Config.option(Config.string("ZED_ADMIN_EMAIL")),
  adminPassword: Config.option(Config.redacted("ZED_ADMIN_PASSWORD")),
  trustProxy: Config.boolean("ZED_TRUST_PROXY").pipe(Config.withDefault(false)),
  geoip: Config.boolean("ZED_GEOIP").pipe(Config.withDefault(true)),
  shutdownGraceMs: positive("ZED_SHUTDOWN_GRACE_MS", DEFAULT_SHUTDOWN_GRACE_MS),
  limits: Config.all({
    bodyBytes: Config.all({
      capture: positive("ZED_BODY_LIMIT_CAPTURE", bodyBytes.capture),
      batch: positive("ZED_BODY_LIMIT_BATCH", bodyBytes.batch),
      recordings: positive("ZED_BODY_LIMIT_RECORDINGS", bodyBytes.recordings),
      api: positive("ZED_BODY_LIMIT_API", bodyBytes.api)
    }),
    eventsPerBatch: positive("ZED_EVENTS_PER_BATCH", DEFAULT_LIMITS.eventsPerBatch)
  })
})

export type ServerConfig = Config.Config.Success<typeof ServerConfig>

export const loadConfig = (): Promise<ServerConfig> => Effect.runPromise(ServerConfig)

/** PostgreSQL when `DATABASE_URL` is set, else the embedded PGlite store under the data directory. */
const metadataFor = (config: Pick<ServerConfig, "databaseUrl" | "dataDir">): ZedStorage =>
  Option.match(config.databaseUrl, {
    onSome: (url) => postgresStorage({ url }),
    onNone: () => pgliteStorage({ dataDir: join(config.dataDir, "pgdata") })
  })

type StorageConfig = Pick<ServerConfig, "databaseUrl" | "dataDir" | "clickhouseUrl" | "clickhouseCluster" | "events">

/**
 * Where events go when not to Postgres: the ClickHouse server (or cluster, with
 * `CLICKHOUSE_CLUSTER`) `CLICKHOUSE_URL` names, or chDB under the data directory (`ZED_EVENTS=chdb`).
 */
export const clickhouseFor = (config: StorageConfig) =>
  Option.isSome(config.clickhouseUrl)
    ? Option.some(
        httpClickHouse({ url: config.clickhouseUrl.value, cluster: Option.getOrUndefined(config.clickhouseCluster) })
      )
    : config.events === "chdb"
      ? Option.some(chdbClickHouse({ path: join(config.dataDir, "chdb") }))
      : Option.none()

/** The metadata store, with events and ZedQL on ClickHouse when one is configured. */
export const storageFor = (config: StorageConfig): ZedStorage =>
  Option.match(clickhouseFor(config), {
    onNone: () => metadataFor(config),
    onSome: (clickhouse) => clickhouseStorage({ metadata: metadataFor(config), clickhouse })
  })

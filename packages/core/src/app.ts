import { Layer } from "effect"
import { PersonCache, PersonCacheLive } from "./ingest/personCache.js"
import { ProjectTokens, ProjectTokensLive } from "./ingest/projectTokens.js"
import { IngestWriter, IngestWriterLive } from "./ingest/writer.js"
import type { StorageServices, ZedStorage } from "./services/Storage.js"
import { ZedConfig } from "./services/ZedConfig.js"

/** Everything request handling runs with: storage, and the services built on it. */
export type AppServices = StorageServices | IngestWriter | PersonCache | ProjectTokens | ZedConfig

export const appLayer = (storage: ZedStorage, config: ZedConfig["Type"]): Layer.Layer<AppServices, Layer.Layer.Error<ZedStorage>> =>
  IngestWriterLive.pipe(
    Layer.provideMerge(Layer.mergeAll(PersonCacheLive, ProjectTokensLive, Layer.succeed(ZedConfig, config))),
    Layer.provideMerge(storage)
  )

// By path: the @effect/platform barrel loads every module of the package (about 30 MB of heap).
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Layer } from "effect"
import { SignInThrottle, SignInThrottleLive } from "./accounts/throttle.js"
import { CohortCalculation, CohortCalculationLive } from "./flags/cohortCalculation.js"
import { FlagDefinitions, FlagDefinitionsLive } from "./flags/definitions.js"
import { FlagPersons, FlagPersonsLive } from "./flags/persons.js"
import { FlagQuota, FlagQuotaLive } from "./flags/quota.js"
import { Destinations, DestinationsLive } from "./functions/destinations.js"
import { FunctionHealth, FunctionHealthLive } from "./functions/health.js"
import { FunctionLogger, FunctionLoggerLive } from "./functions/logs.js"
import { FunctionMetrics, FunctionMetricsLive } from "./functions/metrics.js"
import { EventPipeline, EventPipelineLive } from "./functions/pipeline.js"
import { FunctionRegistry, FunctionRegistryLive } from "./functions/registry.js"
import { GrammarLive } from "./grammar/pool.js"
import { PersonCache, PersonCacheLive } from "./ingest/personCache.js"
import { ProjectTokens, ProjectTokensLive } from "./ingest/projectTokens.js"
import { IngestWriter, IngestWriterLive } from "./ingest/writer.js"
import { ExportRunner, ExportRunnerLive } from "./exports/ExportRunner.js"
import { InsightCompute, InsightComputeLive } from "./insights/compute.js"
import { Lifecycle, LifecycleLive } from "./lifecycle/Lifecycle.js"
import { QueryRunner, QueryRunnerLive } from "./queries/runner.js"
import { PosthogJs, PosthogJsLive } from "./sdk/posthogJs.js"
import type { GeoIp } from "./services/GeoIp.js"
import type { StorageServices, ZedStorage } from "./services/Storage.js"
import { timeLimited } from "./services/timeLimit.js"
import { SurveyResponses, SurveyResponsesLive } from "./surveys/responses.js"
import { ZedConfig } from "./services/ZedConfig.js"

/** Everything request handling runs with: storage, and the services built on it. */
export type AppServices =
  | StorageServices
  | CohortCalculation
  | Destinations
  | EventPipeline
  | ExportRunner
  | FlagDefinitions
  | FlagPersons
  | FlagQuota
  | FunctionHealth
  | FunctionLogger
  | FunctionMetrics
  | FunctionRegistry
  | GeoIp
  | IngestWriter
  | InsightCompute
  | Lifecycle
  | PersonCache
  | PosthogJs
  | ProjectTokens
  | QueryRunner
  | SignInThrottle
  | SurveyResponses
  | ZedConfig

export const appLayer = (
  storage: ZedStorage,
  geoip: Layer.Layer<GeoIp>,
  config: ZedConfig["Type"]
): Layer.Layer<AppServices, Layer.Layer.Error<ZedStorage>> =>
  Layer.mergeAll(IngestWriterLive, EventPipelineLive).pipe(
    Layer.provideMerge(DestinationsLive),
    Layer.provideMerge(
      Layer.mergeAll(
        FunctionLoggerLive,
        FunctionMetricsLive,
        FunctionRegistryLive,
        FunctionHealthLive,
        FetchHttpClient.layer
      )
    ),
    Layer.provideMerge(
      Layer.mergeAll(
        FlagPersonsLive,
        ProjectTokensLive,
        FlagDefinitionsLive,
        FlagQuotaLive,
        ExportRunnerLive.pipe(
          Layer.provideMerge(Layer.mergeAll(InsightComputeLive, SurveyResponsesLive, CohortCalculationLive)),
          Layer.provideMerge(QueryRunnerLive)
        ),
        PosthogJsLive,
        geoip
      )
    ),
    Layer.provideMerge(LifecycleLive),
    Layer.provideMerge(
      Layer.mergeAll(
        PersonCacheLive,
        GrammarLive(config.limits.grammar),
        SignInThrottleLive,
        Layer.succeed(ZedConfig, config)
      )
    ),
    Layer.provideMerge(Layer.map(storage, timeLimited(config.limits.storageTimeoutMs)))
  )

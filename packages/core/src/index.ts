export { type ApiError, type ErrorBody, errorReply } from "./api/errors.js"
export { makeApp, type App } from "./api/handler.js"
export { fromNodeRequest, type NodeRequestOptions, writeNodeReply } from "./api/node.js"
export { openApiDocument, type OpenApiDocument } from "./api/openapi.js"
export { DEFAULT_LIMIT, MAX_LIMIT, type Page, pageLinks, paginated, toPage } from "./api/pagination.js"
export { Reply } from "./api/reply.js"
export { BodyTooLargeError, routePath, type ZedRequest } from "./api/request.js"
export { type Route } from "./api/route.js"
export { routes } from "./api/routes/index.js"
export { fromWebRequest, toWebResponse, type WebRequestOptions } from "./api/web.js"
export { issuePersonalApiKey, type KeyRequest, KeyRequestError } from "./apiKeys.js"
export { bootstrap, BootstrapError, type BootstrapOptions, type BootstrapResult, type Credentials } from "./bootstrap.js"
export { createZed, DEFAULT_SHUTDOWN_GRACE_MS, type Zed, type ZedOptions } from "./createZed.js"
export { Lifecycle, LifecycleLive, type NotReadyReason, type Readiness } from "./lifecycle/Lifecycle.js"
export { DEFAULT_LIMITS, limitsOf, type LimitsOptions, ZedConfig, type ZedLimits } from "./services/ZedConfig.js"
export { DEFAULT_GRAMMAR_LIMITS, Grammar, type GrammarLimits, GrammarRefused, makeGrammarPool } from "./grammar/pool.js"
export { DEMO_EVENT_NAMES } from "./demo/catalog.js"
export { DEFAULT_DEMO_DAYS, DEFAULT_DEMO_SEED, demoEvents, type DemoOptions, DemoOptionsError } from "./demo/generate.js"
export { DemoLoadError, loadDemoData, type LoadDemoOptions } from "./demo/load.js"
export type { DemoEvent } from "./demo/session.js"
export { FlagDefinitions, type FlagSnapshot } from "./flags/definitions.js"
export { definitionsDocument } from "./flags/localEvaluation.js"
export { billingPeriod, FlagQuota } from "./flags/quota.js"
export { generatePersonalApiKey, generateProjectApiKey, hashApiKey, maskApiKey } from "./domain/keys.js"
export {
  DEFAULT_SETTINGS,
  type Organization,
  type PersonalApiKey,
  Project,
  ProjectSettings,
  type User,
  UserBasic
} from "./domain/models.js"
export { grants, isScope, type Scope, scopeObjects } from "./domain/scopes.js"
export { isTimeZone } from "./domain/timezone.js"
export { decodeCapturePayload, type CaptureInput, type DecodeResult } from "./ingest/decode.js"
export { GROUP_TYPE_LIMIT, type GroupUpdate, groupColumns, groupTypesOf, groupUpdates } from "./ingest/groups.js"
export { type IncomingEvent, normalizeEvent } from "./ingest/normalize.js"
export { isUuid, uuidv5, uuidv7 } from "./ingest/uuid.js"
export { ingest, IngestWriter } from "./ingest/writer.js"
export { Destinations } from "./functions/destinations.js"
export { FunctionLogger } from "./functions/logs.js"
export { EventPipeline } from "./functions/pipeline.js"
export { FunctionRegistry } from "./functions/registry.js"
export { BUILTIN_PLUGINS } from "./plugins/catalog.js"
export { PosthogJs, type SdkAsset } from "./sdk/posthogJs.js"
export { type Bytecode, compileExpression, compileProgram, compileTemplate, HogCompileError, type HogLimits, type HogOutcome, runHog, runHogAsync } from "./hog/index.js"
export {
  asInstant,
  asNumber,
  DATE_TEXT,
  filterTexts,
  isPattern,
  matches,
  NEGATES,
  NUMERIC_TEXT,
  PROPERTY_OPERATORS,
  PropertyFilter,
  type PropertyOperator,
  propertyText
} from "./filters/property.js"
export { displayName, isIllegalDistinctId, type Person, PERSON_NAMESPACE, personUuid } from "./persons/model.js"
export { type PersonChanges, type PersonDraft, processPersons } from "./persons/processor.js"
export * from "./flags/index.js"
export * from "./zedql/index.js"
export { ApiKeyStore, type NewPersonalApiKey } from "./services/ApiKeyStore.js"
export { type CohortPatch, CohortStore, type NewCohort, type StoredCohort } from "./services/CohortStore.js"
export {
  type EarlyAccessFeaturePatch,
  EarlyAccessFeatureStore,
  type NewEarlyAccessFeature,
  type StoredEarlyAccessFeature
} from "./services/EarlyAccessFeatureStore.js"
export { FlagInputs, type FlagInputsQuery, type FlagInputsResult } from "./services/FlagInputs.js"
export { type FlagPatch, type FlagQuery, FlagStore, type NewFlag, type StoredFlag } from "./services/FlagStore.js"
export { UsageStore } from "./services/UsageStore.js"
export {
  type PropertyDefinition,
  PropertyDefinitions,
  type PropertyOwner,
  type PropertyType
} from "./services/PropertyDefinitions.js"
export { type CachedResponse, QueryCache } from "./services/QueryCache.js"
export {
  type ExecuteRequest,
  QueryCancelled,
  QueryExecutor,
  QueryFailed,
  QueryTimeout,
  type ResultColumn,
  type ResultSet
} from "./services/QueryExecutor.js"
export { type QueryProgress, type QueryStatus, QueryStatusStore } from "./services/QueryStatusStore.js"
export {
  type BackgroundAction,
  cacheExpiry,
  type CacheDecision,
  type CacheSituation,
  cacheTargetAge,
  decideCaching,
  isStale,
  nextAllowedClientRefresh,
  type QueryFreshness,
  RefreshMode,
  refreshMode,
  type Staleness,
  ZEDQL_STALENESS
} from "./queries/cachePolicy.js"
export { cacheKey, type CacheKeyInput } from "./queries/cacheKey.js"
export { type PlanRequest, type QueryAnswer, QueryRunner, QueryRunnerLive } from "./queries/runner.js"
export type { InsightContext, InsightPlan } from "./insights/plan.js"
export { type EventQuery, EventStore, type StoredEvent } from "./services/EventStore.js"
export { GeoIp, GeoIpNone } from "./services/GeoIp.js"
export { type Group, GroupStore } from "./services/GroupStore.js"
export { type DepthCount, depthBucket, type HeatmapRange, type HeatmapSelection, HeatmapStore, type PointCount, relativeX } from "./services/HeatmapStore.js"
export { type HeatmapPoint, heatmapPoints, SCALE_FACTOR } from "./heatmaps/points.js"
export {
  type ActivityEntry,
  type Dashboard,
  type DashboardTile,
  type InsightPatch,
  type InsightQuery,
  InsightStore,
  type NewActivity,
  type NewDashboard,
  type NewInsight,
  type SharingConfiguration,
  type StoredInsight
} from "./services/InsightStore.js"
export { InsightCompute, type InsightComputed, InsightComputeLive } from "./insights/compute.js"
export {
  ACTIVITY_THRESHOLD_MS,
  type ChunkInfo,
  type ChunkSummary,
  type NewChunk,
  type RecordingMeta,
  RecordingStore
} from "./services/RecordingStore.js"
export {
  type NewPlaylist,
  type PinnedRecording,
  PLAYLIST_ORDERS,
  type PlaylistOrder,
  type PlaylistPatch,
  type PlaylistQuery,
  PlaylistStore,
  type PlaylistType,
  type StoredPlaylist
} from "./services/PlaylistStore.js"
export {
  type FunctionPatch,
  type FunctionType,
  type NewFunction,
  type StoredFunction,
  type StoredInput,
  ZedFunctionStore
} from "./services/ZedFunctionStore.js"
export {
  type PluginConfigPatch,
  PluginConfigStore,
  type PluginDefaults,
  type StoredPluginConfig
} from "./services/PluginConfigStore.js"
export {
  FunctionLogStore,
  LOG_SOURCES,
  LOG_TYPES,
  type LogEntry,
  type LogOwner,
  type LogQuery,
  type LogSource,
  type LogType
} from "./services/FunctionLogStore.js"
export { type PersonQuery, PersonStore } from "./services/PersonStore.js"
export { type NewSurvey, type StoredSurvey, type SurveyPatch, type SurveyQuery, SurveyStore } from "./services/SurveyStore.js"
export { memoryStorage } from "./services/memory/index.js"
export { processQueryStores } from "./services/memory/queries.js"
export { OrganizationStore } from "./services/OrganizationStore.js"
export { type NewProject, type ProjectPatch, type ProjectQuery, ProjectStore } from "./services/ProjectStore.js"
export type { StorageServices, ZedStorage } from "./services/Storage.js"
export { StorageError } from "./services/StorageError.js"
export { ProbeFailed, type ProbeFailureReason, StorageProbe } from "./services/StorageProbe.js"
export { Transactor } from "./services/Transactor.js"
export { type NewUser, UserStore } from "./services/UserStore.js"
export { VERSION } from "./version.js"

// `@zed/core/storage`: what a storage implementation provides and uses — the store ports (one
// `Context.Tag` each), the records they hold, their errors, and the in-memory reference store.

export {
  DEFAULT_SETTINGS,
  type Organization,
  type PersonalApiKey,
  Project,
  ProjectSettings,
  type Invite,
  MembershipLevel,
  type User,
  UserBasic
} from "./domain/models.js"
export { GROUP_TYPE_LIMIT, type GroupUpdate, groupColumns, groupTypesOf, groupUpdates } from "./ingest/groups.js"
export { isUuid, uuidv5, uuidv7 } from "./ingest/uuid.js"
export { displayName, isIllegalDistinctId, type Person, PERSON_NAMESPACE, personUuid } from "./persons/model.js"
export { type PersonChanges, type PersonDraft, processPersons } from "./persons/processor.js"
export { ApiKeyStore, type NewPersonalApiKey, type PersonalApiKeyPatch } from "./services/ApiKeyStore.js"
export { InviteStore, type NewInvite } from "./services/InviteStore.js"
export { SessionStore } from "./services/SessionStore.js"
export { Action, ActionInsert, type ActionStep } from "./actions/actionEntity.js"
export { type ActionPatch, ActionStore, type NewAction, type StoredAction } from "./services/ActionStore.js"
export { Experiment, ExperimentInsert } from "./experiments/experimentEntity.js"
export {
  type ExperimentPatch,
  ExperimentStore,
  type NewExperiment,
  type StoredExperiment
} from "./services/ExperimentStore.js"
export { Holdout, HoldoutInsert } from "./experiments/holdoutEntity.js"
export { type HoldoutPatch, HoldoutStore, type NewHoldout, type StoredHoldout } from "./services/HoldoutStore.js"
export { Annotation, AnnotationInsert } from "./annotations/annotationEntity.js"
export {
  type AnnotationOwner,
  type AnnotationPatch,
  type AnnotationQuery,
  AnnotationStore,
  type NewAnnotation,
  type StoredAnnotation
} from "./services/AnnotationStore.js"
export { ExportedAsset, ExportInsert } from "./exports/exportEntity.js"
export {
  EXPORT_CHUNK_BYTES,
  type ExportOutcome,
  ExportStore,
  type NewExport,
  type StoredExport
} from "./services/ExportStore.js"
export { Cohort, CohortInsert } from "./flags/cohortEntity.js"
export { type CohortPatch, CohortStore, type NewCohort, type StoredCohort } from "./services/CohortStore.js"
export { EarlyAccessFeature, EarlyAccessFeatureInsert } from "./earlyAccess/featureEntity.js"
export {
  type EarlyAccessFeaturePatch,
  EarlyAccessFeatureStore,
  type NewEarlyAccessFeature,
  type StoredEarlyAccessFeature
} from "./services/EarlyAccessFeatureStore.js"
export { FlagInputs, type FlagInputsQuery, type FlagInputsResult } from "./services/FlagInputs.js"
export { Flag, FlagInsert } from "./flags/flagEntity.js"
export { type FlagPatch, type FlagQuery, FlagStore, type NewFlag, type StoredFlag } from "./services/FlagStore.js"
export { UsageStore } from "./services/UsageStore.js"
export {
  type PropertyDefinition,
  PropertyDefinitions,
  type PropertyOwner,
  type PropertyType,
  type SeenEvent
} from "./services/PropertyDefinitions.js"
export type {
  DefinitionPatch,
  PropertyDefinitionPatch,
  StoredEventDefinition,
  StoredPropertyDefinition
} from "./definitions/definitionEntity.js"
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
export type { InsightContext, InsightPlan } from "./insights/plan.js"
export { type EventQuery, EventStore, type StoredEvent } from "./services/EventStore.js"
export { type Group, GroupStore } from "./services/GroupStore.js"
export {
  type DepthCount,
  depthBucket,
  type HeatmapRange,
  type HeatmapSelection,
  HeatmapStore,
  type PointCount,
  relativeX
} from "./services/HeatmapStore.js"
export { type HeatmapPoint, heatmapPoints, SCALE_FACTOR } from "./heatmaps/points.js"
export { Dashboard, DashboardInsert } from "./insights/dashboardEntity.js"
export { Insight, InsightInsert } from "./insights/insightEntity.js"
export {
  type ActivityEntry,
  type DashboardTile,
  type InsightPatch,
  type InsightQuery,
  InsightStore,
  type NewActivity,
  type NewDashboard,
  type NewInsight,
  type NewTile,
  type SharingConfiguration,
  type SharingTarget,
  type StoredDashboard,
  type StoredInsight
} from "./services/InsightStore.js"
export {
  ACTIVITY_THRESHOLD_MS,
  type ChunkInfo,
  type ChunkSummary,
  type NewChunk,
  type RecordingMeta,
  RecordingStore
} from "./services/RecordingStore.js"
export { Playlist, PlaylistInsert } from "./recordings/playlistEntity.js"
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
export { FunctionInsert, ZedFunction } from "./functions/functionEntity.js"
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
export {
  type FunctionMetric,
  FunctionMetricStore,
  type MetricCount,
  type MetricRange
} from "./services/FunctionMetricStore.js"
export { type PersonQuery, PersonStore } from "./services/PersonStore.js"
export { Survey, SurveyInsert } from "./surveys/surveyEntity.js"
export {
  type NewSurvey,
  type StoredSurvey,
  type SurveyPatch,
  type SurveyQuery,
  SurveyStore
} from "./services/SurveyStore.js"
export { processQueryStores } from "./services/memory/queries.js"
export { OrganizationStore } from "./services/OrganizationStore.js"
export { type NewProject, type ProjectPatch, type ProjectQuery, ProjectStore } from "./services/ProjectStore.js"
export type { StorageServices, ZedStorage } from "./services/Storage.js"
export { StorageError } from "./services/StorageError.js"
export { Transactor } from "./services/Transactor.js"
export { type NewUser, type UserPatch, UserStore } from "./services/UserStore.js"
export type { IncomingEvent } from "./ingest/normalize.js"
export { memoryStorage } from "./services/memory/index.js"
export { ProbeFailed, type ProbeFailureReason, StorageProbe } from "./services/StorageProbe.js"

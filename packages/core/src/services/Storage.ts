import type { Layer } from "effect"
import type { ActionStore } from "./ActionStore.js"
import type { AnnotationStore } from "./AnnotationStore.js"
import type { ApiKeyStore } from "./ApiKeyStore.js"
import type { CohortStore } from "./CohortStore.js"
import type { EarlyAccessFeatureStore } from "./EarlyAccessFeatureStore.js"
import type { EventStore } from "./EventStore.js"
import type { ExperimentStore } from "./ExperimentStore.js"
import type { HoldoutStore } from "./HoldoutStore.js"
import type { ExportStore } from "./ExportStore.js"
import type { FlagInputs } from "./FlagInputs.js"
import type { FlagStore } from "./FlagStore.js"
import type { FunctionLogStore } from "./FunctionLogStore.js"
import type { FunctionMetricStore } from "./FunctionMetricStore.js"
import type { GroupStore } from "./GroupStore.js"
import type { HeatmapStore } from "./HeatmapStore.js"
import type { InviteStore } from "./InviteStore.js"
import type { InsightStore } from "./InsightStore.js"
import type { OrganizationStore } from "./OrganizationStore.js"
import type { PersonStore } from "./PersonStore.js"
import type { PlaylistStore } from "./PlaylistStore.js"
import type { PluginConfigStore } from "./PluginConfigStore.js"
import type { ProjectStore } from "./ProjectStore.js"
import type { PropertyDefinitions } from "./PropertyDefinitions.js"
import type { QueryCache } from "./QueryCache.js"
import type { QueryExecutor } from "./QueryExecutor.js"
import type { QueryStatusStore } from "./QueryStatusStore.js"
import type { RecordingStore } from "./RecordingStore.js"
import type { SessionStore } from "./SessionStore.js"
import type { StorageError } from "./StorageError.js"
import type { StorageProbe } from "./StorageProbe.js"
import type { SurveyStore } from "./SurveyStore.js"
import type { Transactor } from "./Transactor.js"
import type { UsageStore } from "./UsageStore.js"
import type { UserStore } from "./UserStore.js"
import type { ZedFunctionStore } from "./ZedFunctionStore.js"

/** Every storage port Zed needs; a storage backend is a Layer that provides all of them. */
export type StorageServices =
  | ActionStore
  | AnnotationStore
  | ApiKeyStore
  | CohortStore
  | EarlyAccessFeatureStore
  | ExperimentStore
  | HoldoutStore
  | EventStore
  | ExportStore
  | FlagInputs
  | FlagStore
  | FunctionLogStore
  | FunctionMetricStore
  | GroupStore
  | HeatmapStore
  | InviteStore
  | InsightStore
  | OrganizationStore
  | PersonStore
  | PlaylistStore
  | PluginConfigStore
  | ProjectStore
  | PropertyDefinitions
  | QueryCache
  | QueryExecutor
  | QueryStatusStore
  | RecordingStore
  | SessionStore
  | StorageProbe
  | SurveyStore
  | Transactor
  | UsageStore
  | UserStore
  | ZedFunctionStore

export type ZedStorage = Layer.Layer<StorageServices, StorageError>

import { Effect, Schema } from "effect"
import type { AppServices } from "../../app.js"
import { VERSION } from "../../version.js"
import { openApiDocument } from "../openapi.js"
import { publicRoute, type Route } from "../route.js"
import { accountRoutes } from "./accounts.js"
import { actionRoutes } from "./actions.js"
import { annotationRoutes } from "./annotations.js"
import { captureRouteList } from "./capture.js"
import { cohortRoutes } from "./cohorts.js"
import { dashboardRoutes } from "./dashboards.js"
import { definitionRoutes } from "./definitions.js"
import { earlyAccessFeatureRoutes } from "./earlyAccessFeatures.js"
import { eventRoutes } from "./events.js"
import { experimentHoldoutRoutes } from "./experimentHoldouts.js"
import { experimentRoutes } from "./experiments.js"
import { exportRoutes } from "./exports.js"
import { featureFlagRoutes } from "./featureFlags.js"
import { flagsEvaluationRoutes } from "./flagsEvaluation.js"
import { groupTypesRoute } from "./groupTypes.js"
import { livenessRoute, readinessRoute } from "./health.js"
import { heatmapRoutes } from "./heatmaps.js"
import { insightRoutes } from "./insights.js"
import { localEvaluationRoutes } from "./localEvaluation.js"
import { memberRoutes } from "./members.js"
import { organizationRoutes } from "./organizations.js"
import { personalApiKeyRoutes } from "./personalApiKeys.js"
import { personRoutes } from "./persons.js"
import { playlistRoutes } from "./playlists.js"
import { pluginConfigRoutes } from "./pluginConfigs.js"
import { projectRoutes } from "./projects.js"
import { queryRoutes } from "./query.js"
import { recordingCaptureRoutes, recordingRoutes } from "./recordings.js"
import { remoteConfigRoutes } from "./remoteConfig.js"
import { sharingRoutes } from "./sharing.js"
import { staticAssetRoutes } from "./staticAssets.js"
import { surveyRoutes } from "./surveys.js"
import { zedFunctionRoutes } from "./zedFunctions.js"
import { functionMetricRoutes } from "./functionMetrics.js"

let document: unknown

const schemaRoute = publicRoute({
  method: "GET",
  path: "/api/schema",
  tag: "meta",
  summary: "OpenAPI document of this API",
  response: Schema.Unknown,
  handler: () => Effect.sync(() => (document ??= openApiDocument(routes, VERSION)))
})

/** Every route Zed serves. */
export const routes: ReadonlyArray<Route<AppServices>> = [
  livenessRoute,
  readinessRoute,
  schemaRoute,
  ...accountRoutes,
  ...organizationRoutes,
  ...memberRoutes,
  ...personalApiKeyRoutes,
  ...projectRoutes,
  ...personRoutes,
  ...eventRoutes,
  ...definitionRoutes,
  ...annotationRoutes,
  ...actionRoutes,
  ...exportRoutes,
  ...queryRoutes,
  ...insightRoutes,
  ...sharingRoutes,
  ...dashboardRoutes,
  ...recordingRoutes,
  ...playlistRoutes,
  ...zedFunctionRoutes,
  ...functionMetricRoutes,
  ...pluginConfigRoutes,
  groupTypesRoute,
  ...featureFlagRoutes,
  ...cohortRoutes,
  ...surveyRoutes,
  ...earlyAccessFeatureRoutes,
  ...experimentRoutes,
  ...experimentHoldoutRoutes,
  ...heatmapRoutes,
  ...captureRouteList,
  ...recordingCaptureRoutes,
  ...remoteConfigRoutes,
  ...staticAssetRoutes,
  ...flagsEvaluationRoutes,
  ...localEvaluationRoutes
]

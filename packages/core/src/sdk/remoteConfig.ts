import type { Project } from "../domain/models.js"
import type { FlagSnapshot } from "../flags/definitions.js"
import { isRunning } from "../surveys/schedule.js"

// What posthog-js is told about its project before anything else: where events go, which
// compression it may use, and which of its features run.

/** Whether one of the project's surveys runs now. */
export const hasRunningSurveys = (snapshot: FlagSnapshot, now: Date) => snapshot.surveys.some((s) => isRunning(s, now))

/** The remote config of a project, in the shape posthog-js reads (`surveys` on when one runs). */
export const remoteConfig = (project: Project, hasFeatureFlags: boolean, hasRunningSurveys = false) => ({
  token: project.api_token,
  supportedCompression: ["gzip", "gzip-js"],
  // posthog-js asks /flags on load only when there are active flags.
  hasFeatureFlags,
  captureDeadClicks: project.capture_dead_clicks,
  capturePerformance: project.capture_performance_opt_in
    ? { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null }
    : false,
  autocapture_opt_out: project.autocapture_opt_out,
  autocaptureExceptions: project.autocapture_exceptions_opt_in,
  analytics: { endpoint: "/i/v0/e/" },
  elementsChainAsString: true,
  errorTracking: { autocaptureExceptions: project.autocapture_exceptions_opt_in, suppressionRules: [] },
  logs: { captureConsoleLogs: false },
  sessionRecording: project.session_recording_opt_in
    ? {
        endpoint: "/s/",
        consoleLogRecordingEnabled: project.capture_console_log_opt_in,
        recorderVersion: "v2",
        sampleRate: null,
        minimumDurationMilliseconds: null,
        linkedFlag: null,
        networkPayloadCapture: null,
        masking: null,
        urlTriggers: [],
        urlBlocklist: [],
        eventTriggers: [],
        triggerMatchType: null,
        scriptConfig: null
      }
    : false,
  heatmaps: project.heatmaps_opt_in,
  conversations: false,
  // posthog-js loads its surveys extension, then asks /api/surveys/, only when this is on.
  surveys: hasRunningSurveys,
  productTours: false,
  defaultIdentifiedOnly: true,
  siteApps: []
})

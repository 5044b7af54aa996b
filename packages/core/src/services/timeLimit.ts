import { Context, Duration, Effect } from "effect"
import { ActionStore } from "./ActionStore.js"
import { AnnotationStore } from "./AnnotationStore.js"
import { ApiKeyStore } from "./ApiKeyStore.js"
import { CohortStore } from "./CohortStore.js"
import { EarlyAccessFeatureStore } from "./EarlyAccessFeatureStore.js"
import { EventStore } from "./EventStore.js"
import { ExportStore } from "./ExportStore.js"
import { FlagInputs } from "./FlagInputs.js"
import { FlagStore } from "./FlagStore.js"
import { FunctionLogStore } from "./FunctionLogStore.js"
import { FunctionMetricStore } from "./FunctionMetricStore.js"
import { GroupStore } from "./GroupStore.js"
import { HeatmapStore } from "./HeatmapStore.js"
import { InsightStore } from "./InsightStore.js"
import { InviteStore } from "./InviteStore.js"
import { OrganizationStore } from "./OrganizationStore.js"
import { PersonStore } from "./PersonStore.js"
import { PlaylistStore } from "./PlaylistStore.js"
import { PluginConfigStore } from "./PluginConfigStore.js"
import { ProjectStore } from "./ProjectStore.js"
import { PropertyDefinitions } from "./PropertyDefinitions.js"
import { QueryCache } from "./QueryCache.js"
import { QueryStatusStore } from "./QueryStatusStore.js"
import { RecordingStore } from "./RecordingStore.js"
import { SessionStore } from "./SessionStore.js"
import type { StorageServices } from "./Storage.js"
import { StorageError } from "./StorageError.js"
import { SurveyStore } from "./SurveyStore.js"
import { UsageStore } from "./UsageStore.js"
import { UserStore } from "./UserStore.js"
import { ZedFunctionStore } from "./ZedFunctionStore.js"

// Every storage call gets a time limit, so that a store that stops answering (a frozen server, a
// network partition, a full disk) costs each request that limit and a 503, not a hang. Query
// execution has limits of its own (the query's timeout), and transactions are bounded by the calls
// inside them; a call in a region that must not be cut short (a commit under way) is waited for.

/** The stores whose every call is limited. */
const LIMITED: ReadonlyArray<Context.Tag<any, any>> = [
  ActionStore,
  AnnotationStore,
  ApiKeyStore,
  CohortStore,
  EarlyAccessFeatureStore,
  EventStore,
  ExportStore,
  FlagInputs,
  FlagStore,
  FunctionLogStore,
  FunctionMetricStore,
  GroupStore,
  HeatmapStore,
  InsightStore,
  InviteStore,
  OrganizationStore,
  PersonStore,
  PlaylistStore,
  PluginConfigStore,
  ProjectStore,
  PropertyDefinitions,
  QueryCache,
  QueryStatusStore,
  RecordingStore,
  SessionStore,
  SurveyStore,
  UsageStore,
  UserStore,
  ZedFunctionStore
]

/** A storage call past its limit: answered at once, its interruption (a cancel sent to the server) left to run behind. */
export const storageTimeLimit =
  (ms: number) =>
  <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
    call.pipe(
      Effect.disconnect,
      Effect.timeoutFail({
        duration: Duration.millis(ms),
        onTimeout: () => new StorageError({ message: `storage did not answer within ${ms} ms`, unavailable: true })
      })
    )

const limitService = (service: Record<string, unknown>, limit: ReturnType<typeof storageTimeLimit>) =>
  Object.fromEntries(
    Object.entries(service).map(([name, member]) => [
      name,
      Effect.isEffect(member)
        ? limit(member)
        : typeof member === "function"
          ? (...args: Array<unknown>) => {
              const out = member.apply(service, args)
              return Effect.isEffect(out) ? limit(out) : out
            }
          : member
    ])
  )

/** The storage services with every call limited to `ms` milliseconds. */
export const timeLimited =
  (ms: number) =>
  (context: Context.Context<StorageServices>): Context.Context<StorageServices> => {
    const limit = storageTimeLimit(ms)
    return LIMITED.reduce(
      (limited, tag) => Context.add(limited, tag, limitService(Context.get(limited, tag), limit)),
      context
    )
  }

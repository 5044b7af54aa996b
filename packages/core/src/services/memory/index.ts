import { Effect, Layer } from "effect"
import { ActionStore } from "../ActionStore.js"
import { ExportStore } from "../ExportStore.js"
import { AnnotationStore } from "../AnnotationStore.js"
import { CohortStore } from "../CohortStore.js"
import { EarlyAccessFeatureStore } from "../EarlyAccessFeatureStore.js"
import { EventStore } from "../EventStore.js"
import { FlagInputs } from "../FlagInputs.js"
import { FlagStore } from "../FlagStore.js"
import { FunctionLogStore } from "../FunctionLogStore.js"
import { FunctionMetricStore } from "../FunctionMetricStore.js"
import { GroupStore } from "../GroupStore.js"
import { HeatmapStore } from "../HeatmapStore.js"
import { InsightStore } from "../InsightStore.js"
import { PersonStore } from "../PersonStore.js"
import { PlaylistStore } from "../PlaylistStore.js"
import { PluginConfigStore } from "../PluginConfigStore.js"
import { PropertyDefinitions } from "../PropertyDefinitions.js"
import { QueryCache } from "../QueryCache.js"
import { QueryExecutor } from "../QueryExecutor.js"
import { QueryStatusStore } from "../QueryStatusStore.js"
import { RecordingStore } from "../RecordingStore.js"
import type { ZedStorage } from "../Storage.js"
import { StorageProbe } from "../StorageProbe.js"
import { SurveyStore } from "../SurveyStore.js"
import { UsageStore } from "../UsageStore.js"
import { ZedFunctionStore } from "../ZedFunctionStore.js"
import { makeMemoryAccounts } from "./accounts.js"
import { makeMemoryCohorts } from "./cohorts.js"
import { makeMemoryEarlyAccessFeatures } from "./earlyAccessFeatures.js"
import { makeMemoryFlagInputs } from "./flagInputs.js"
import { makeMemoryFlags } from "./flags.js"
import { makeMemoryEvents } from "./events.js"
import { makeMemoryFunctionLogs } from "./functionLogs.js"
import { makeMemoryFunctionMetrics } from "./functionMetrics.js"
import { makeMemoryFunctions } from "./functions.js"
import { makeMemoryGroups } from "./groups.js"
import { makeMemoryHeatmaps } from "./heatmaps.js"
import { makeMemoryInsights } from "./insights.js"
import { makeJournal } from "./journal.js"
import { makeMemoryPersons } from "./persons.js"
import { makeMemoryPlaylists } from "./playlists.js"
import { memoryProbe } from "./probe.js"
import { makeMemoryPluginConfigs } from "./pluginConfigs.js"
import { makeMemoryPropertyDefinitions } from "./propertyDefinitions.js"
import { makeMemoryAnnotations } from "./annotations.js"
import { makeMemoryActions } from "./actions.js"
import { makeMemoryExperiments } from "./experiments.js"
import { makeMemoryHoldouts } from "./holdouts.js"
import { HoldoutStore } from "../HoldoutStore.js"
import { ExperimentStore } from "../ExperimentStore.js"
import { makeMemoryExports } from "./exports.js"
import { makeMemoryQueryCache, makeMemoryQueryStatuses, memoryQueryExecutor } from "./queries.js"
import { makeMemoryRecordings } from "./recordings.js"
import { makeMemorySurveys } from "./surveys.js"
import { makeMemoryUsage } from "./usage.js"

/**
 * Storage held in process memory, for domain tests without I/O; every call builds a fresh, empty
 * store. Transactions roll back like SQL ones (an undo journal), one at a time.
 */
export const memoryStorage = (): ZedStorage =>
  Layer.unwrapEffect(
    Effect.suspend(() => {
      const journal = makeJournal()
      const persons = makeMemoryPersons(journal)
      const groups = makeMemoryGroups(journal)
      const cohorts = makeMemoryCohorts(journal, persons.store)
      const experiments = makeMemoryExperiments(journal)
      const flagInputs = makeMemoryFlagInputs({
        ...persons,
        persons: persons.store,
        groups,
        isMember: cohorts.isMember
      })
      return Effect.map(makeMemoryAccounts(journal), (accounts) =>
        Layer.mergeAll(
          ...accounts,
          Layer.succeed(EventStore, makeMemoryEvents(journal)),
          Layer.succeed(PersonStore, persons.store),
          Layer.succeed(GroupStore, groups),
          Layer.succeed(FlagStore, makeMemoryFlags(journal, experiments.onFlag)),
          Layer.succeed(CohortStore, cohorts.store),
          Layer.succeed(InsightStore, makeMemoryInsights(journal)),
          Layer.succeed(RecordingStore, makeMemoryRecordings(journal)),
          Layer.succeed(PlaylistStore, makeMemoryPlaylists(journal)),
          Layer.succeed(SurveyStore, makeMemorySurveys(journal)),
          Layer.succeed(EarlyAccessFeatureStore, makeMemoryEarlyAccessFeatures(journal)),
          Layer.succeed(AnnotationStore, makeMemoryAnnotations(journal)),
          Layer.succeed(ActionStore, makeMemoryActions(journal)),
          Layer.succeed(ExperimentStore, experiments.store),
          Layer.succeed(HoldoutStore, makeMemoryHoldouts(journal)),
          Layer.succeed(ExportStore, makeMemoryExports(journal)),
          Layer.succeed(HeatmapStore, makeMemoryHeatmaps(journal)),
          Layer.succeed(ZedFunctionStore, makeMemoryFunctions(journal)),
          Layer.succeed(PluginConfigStore, makeMemoryPluginConfigs(journal)),
          Layer.succeed(FunctionLogStore, makeMemoryFunctionLogs(journal)),
          Layer.succeed(FunctionMetricStore, makeMemoryFunctionMetrics(journal)),
          Layer.succeed(FlagInputs, flagInputs),
          Layer.succeed(UsageStore, makeMemoryUsage(journal)),
          Layer.succeed(PropertyDefinitions, makeMemoryPropertyDefinitions(journal)),
          Layer.succeed(QueryCache, makeMemoryQueryCache(journal)),
          Layer.succeed(QueryStatusStore, makeMemoryQueryStatuses(journal)),
          Layer.succeed(QueryExecutor, memoryQueryExecutor),
          Layer.succeed(StorageProbe, memoryProbe)
        )
      )
    })
  )

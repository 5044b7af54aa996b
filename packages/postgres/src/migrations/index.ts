import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect } from "effect"
import foundation from "./0001_foundation.js"
import eventsPersons from "./0002_events_persons.js"
import featureFlags from "./0003_feature_flags.js"
import queries from "./0004_queries.js"
import propertyDefinitions from "./0005_property_definitions.js"
import insights from "./0006_insights.js"
import recordings from "./0007_recordings.js"
import testAccountFilters from "./0008_test_account_filters.js"
import functions from "./0009_functions.js"
import surveys from "./0010_surveys.js"
import earlyAccessFeatures from "./0011_early_access_features.js"
import heatmaps from "./0012_heatmaps.js"
import readinessProbe from "./0013_readiness_probe.js"
import accounts from "./0014_accounts.js"
import definitions from "./0015_definitions.js"
import annotations from "./0016_annotations.js"
import actions from "./0017_actions.js"
import dashboards from "./0018_dashboards.js"
import cohortCalculation from "./0019_cohort_calculation.js"
import experiments from "./0020_experiments.js"
import exportedAssets from "./0023_exports.js"
import experimentHoldouts from "./0024_experiment_holdouts.js"
import functionMetrics from "./0025_function_metrics.js"
import exportSizes from "./0026_export_sizes.js"

const run = Migrator.make({})({
  loader: Migrator.fromRecord({
    "0001_foundation": foundation,
    "0002_events_persons": eventsPersons,
    "0003_feature_flags": featureFlags,
    "0004_queries": queries,
    "0005_property_definitions": propertyDefinitions,
    "0006_insights": insights,
    "0007_recordings": recordings,
    "0008_test_account_filters": testAccountFilters,
    "0009_functions": functions,
    "0010_surveys": surveys,
    "0011_early_access_features": earlyAccessFeatures,
    "0012_heatmaps": heatmaps,
    "0013_readiness_probe": readinessProbe,
    "0014_accounts": accounts,
    "0015_definitions": definitions,
    "0016_annotations": annotations,
    "0017_actions": actions,
    "0018_dashboards": dashboards,
    "0019_cohort_calculation": cohortCalculation,
    "0020_experiments": experiments,
    "0023_exports": exportedAssets,
    // Numbered after 0023: the migrator runs only ids above the latest one applied.
    "0024_experiment_holdouts": experimentHoldouts,
    "0025_function_metrics": functionMetrics,
    "0026_export_sizes": exportSizes
  })
})

/**
 * Applies pending migrations. Instances starting together on a fresh database would race to create
 * the migrations table, so the whole run holds an advisory lock inside one transaction, and the
 * table (as the migrator defines it) is made first: the migrator's own probe for it fails the
 * transaction when it is missing.
 */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext('zed.migrations'))`
      yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
      migration_id integer PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now(),
      name text NOT NULL
    )`
      return yield* run
    })
  )
})

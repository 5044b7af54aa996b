import { Context, type Effect } from "effect"
import type { StorageError } from "./StorageError.js"

/** Counted flag evaluations per organization and billing period (a calendar month, "YYYY-MM" in UTC). */
export class UsageStore extends Context.Tag("@zed/core/UsageStore")<
  UsageStore,
  {
    /** Adds `count` evaluations and answers the period's total across every instance. */
    readonly addFlagEvaluations: (
      organizationId: string,
      period: string,
      count: number
    ) => Effect.Effect<number, StorageError>
  }
>() {}

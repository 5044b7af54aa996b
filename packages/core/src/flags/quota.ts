import { Context, Effect, Layer, Option } from "effect"
import { OrganizationStore } from "../services/OrganizationStore.js"
import { UsageStore } from "../services/UsageStore.js"

/**
 * Flag evaluations per organization and calendar month, against the organization's quota. Counted
 * in memory and added to storage every few seconds and at shutdown (so no request waits on it);
 * every instance adds its share, learns the total and re-reads the quota each time.
 */
export class FlagQuota extends Context.Tag("@zed/core/FlagQuota")<
  FlagQuota,
  {
    /** Counts one evaluation request; answers whether the organization is over its quota. */
    readonly count: (organizationId: string) => Effect.Effect<boolean>
    /**
     * `count` from memory: undefined, counting nothing, when the organization's quota must be read
     * first (its first request of a period).
     */
    readonly tally: (organizationId: string) => boolean | undefined
    /** Adds what was counted to storage and re-reads the quotas now (also done every few seconds, and on shutdown). */
    readonly flush: Effect.Effect<void>
  }
>() {}

const FLUSH_EVERY = "2 seconds"

/** The billing period of an instant: its calendar month in UTC. */
export const billingPeriod = (now: Date): string => now.toISOString().slice(0, 7)

interface Account {
  readonly period: string
  /** Counted here and not yet added to storage. */
  pending: number
  /** The period's total in storage when last flushed (all instances). */
  stored: number
  quota: number | null
  known: boolean
}

/** Whether the organization is over its quota; counts the request when it is not. */
const tallyOf = (account: Account): boolean => {
  const over = account.quota !== null && account.stored + account.pending >= account.quota
  if (!over) account.pending++
  return over
}

export const FlagQuotaLive = Layer.scoped(
  FlagQuota,
  Effect.gen(function* () {
    const organizations = yield* OrganizationStore
    const usage = yield* UsageStore
    const accounts = new Map<string, Account>()
    // The current period, recomputed only when the clock passes its end.
    let period = { name: "", endsAt: 0 }
    const currentPeriod = () => {
      const now = Date.now()
      if (now >= period.endsAt) {
        const date = new Date(now)
        period = { name: billingPeriod(date), endsAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1) }
      }
      return period.name
    }

    const refresh = (organizationId: string, account: Account) =>
      Effect.gen(function* () {
        const pending = account.pending
        account.pending = 0
        account.stored = yield* Effect.onError(usage.addFlagEvaluations(organizationId, account.period, pending), () =>
          Effect.sync(() => void (account.pending += pending))
        )
        account.quota = Option.match(yield* organizations.get(organizationId), {
          onNone: () => null,
          onSome: (org) => org.flag_evaluation_quota
        })
        account.known = true
      }).pipe(
        // Counting must never fail a flag request: what could not be added is added next time.
        Effect.catchAll((error) => Effect.logWarning("flag quota: could not record usage", error.message))
      )

    const flush = Effect.suspend(() =>
      Effect.forEach([...accounts], ([id, account]) => refresh(id, account), { discard: true })
    )
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(FLUSH_EVERY), flush)))
    yield* Effect.addFinalizer(() => flush)

    const tally = (organizationId: string): boolean | undefined => {
      const account = accounts.get(organizationId)
      return account !== undefined && account.period === currentPeriod() && account.known ? tallyOf(account) : undefined
    }

    return FlagQuota.of({
      flush,
      tally,
      count: (organizationId) =>
        Effect.suspend(() => {
          const answer = tally(organizationId)
          if (answer !== undefined) return Effect.succeed(answer)
          return Effect.gen(function* () {
            const period = currentPeriod()
            const account = accounts.get(organizationId)
            // What the closing month counted is added to it before the new month starts from zero.
            if (account !== undefined && account.period !== period) yield* refresh(organizationId, account)
            const fresh: Account =
              account?.period === period ? account : { period, pending: 0, stored: 0, quota: null, known: false }
            accounts.set(organizationId, fresh)
            // The first request of a period learns the quota before answering.
            if (!fresh.known) yield* refresh(organizationId, fresh)
            return tallyOf(fresh)
          })
        })
    })
  })
)

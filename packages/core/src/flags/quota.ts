import { Context, Effect, Layer, Option } from "effect"
import { OrganizationStore } from "../services/OrganizationStore.js"
import { UsageStore } from "../services/UsageStore.js"

/**
 * Flag evaluations per organization and calendar month, against the organization's quota. Counted
 * in memory and added to storage every few seconds (so no request waits on it); every instance adds
 * its share and learns the total.
 */
export class FlagQuota extends Context.Tag("@zed/core/FlagQuota")<FlagQuota, {
  /** Counts one evaluation request; answers whether the organization is over its quota. */
  readonly count: (organizationId: string) => Effect.Effect<boolean>
  /** Adds what was counted to storage now (also done every few seconds, and on shutdown). */
  readonly flush: Effect.Effect<void>
}>() {}

const FLUSH_EVERY = "2 seconds"

/** The billing period of an instant: its calendar month in UTC. */
export const billingPeriod = (now: Date): string => now.toISOString().slice(0, 7)

/** Whether the organization is over its quota; counts the request when it is not. */
const tally = (account: Account): boolean => {
  const over = account.quota !== null && account.stored + account.pending >= account.quota
  if (!over) account.pending++
  return over
}

interface Account {
  period: string
  /** Counted here and not yet added to storage. */
  pending: number
  /** The period's total in storage when last flushed (all instances). */
  stored: number
  quota: number | null
  known: boolean
}

export const FlagQuotaLive = Layer.scoped(
  FlagQuota,
  Effect.gen(function*() {
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
      Effect.gen(function*() {
        const pending = account.pending
        account.pending = 0
        account.stored = yield* usage.addFlagEvaluations(organizationId, account.period, pending)
        account.quota = Option.match(yield* organizations.get(organizationId), {
          onNone: () => null,
          onSome: (org) => org.flag_evaluation_quota
        })
        account.known = true
      }).pipe(
        // Counting must never fail a flag request: what could not be added is added next time.
        Effect.catchAll((error) => Effect.logWarning("flag quota: could not record usage", error.message))
      )

    const flush = Effect.forEach([...accounts], ([id, account]) => refresh(id, account), { discard: true })
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(FLUSH_EVERY), flush)))
    yield* Effect.addFinalizer(() => flush)

    return FlagQuota.of({
      flush,
      count: (organizationId) =>
        Effect.suspend(() => {
          const period = currentPeriod()
          const account = accounts.get(organizationId)
          // Every request but a period's first answers from memory, without a fiber of its own.
          if (account !== undefined && account.period === period && account.known) return Effect.succeed(tally(account))
          return Effect.gen(function*() {
            // What the closing month counted is added to it before the new month starts from zero.
            if (account !== undefined && account.period !== period) yield* refresh(organizationId, account)
            const fresh: Account = account?.period === period ? account : { period, pending: 0, stored: 0, quota: null, known: false }
            accounts.set(organizationId, fresh)
            // The first request of a period learns the quota before answering.
            if (!fresh.known) yield* refresh(organizationId, fresh)
            return tally(fresh)
          })
        })
    })
  })
)

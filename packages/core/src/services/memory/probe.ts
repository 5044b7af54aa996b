import { Effect } from "effect"
import { ProbeFailed, StorageProbe } from "../StorageProbe.js"

/** Process memory always takes a write while the process runs; the probe still writes and reads one back. */
export const makeMemoryProbe = () => {
  const cell = { checkedAt: 0 }
  return StorageProbe.of({
    probe: Effect.suspend(() => {
      const now = Date.now()
      cell.checkedAt = now
      return cell.checkedAt === now ? Effect.void : Effect.fail(new ProbeFailed({ reason: "failed", message: "memory did not keep a write" }))
    })
  })
}

import { Effect } from "effect"
import { StorageProbe } from "../StorageProbe.js"

/** Process memory takes writes for as long as the process runs: there is nothing for the probe to find. */
export const memoryProbe = StorageProbe.of({ probe: Effect.void })

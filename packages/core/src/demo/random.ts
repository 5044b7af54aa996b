import { Utils } from "effect"
import { uuidv5 } from "../ingest/uuid.js"

// The demo's only source of chance: every draw comes from one seeded PCG stream, consumed in a fixed
// order, so a seed always gives the same data (no Math.random, no clock).

/** Namespace of the demo's uuids; names are `<seed>:<serial>`. */
const DEMO_NAMESPACE = "10f5f43e-512d-47dd-aa47-a4dee1518af3"

/** Choices with relative weights, summed once so that drawing is a scan. */
export interface Weighted<A> {
  readonly items: ReadonlyArray<A>
  readonly cumulative: ReadonlyArray<number>
}

export const weighted = <A>(entries: ReadonlyArray<readonly [A, number]>): Weighted<A> => {
  let total = 0
  return { items: entries.map(([item]) => item), cumulative: entries.map(([, weight]) => (total += weight)) }
}

export class Chance {
  private readonly pcg: Utils.PCGRandom
  private serial = 0

  constructor(private readonly seed: number) {
    this.pcg = new Utils.PCGRandom(Math.floor(seed / 2 ** 32), seed >>> 0)
  }

  /** Uniform in [0, 1). */
  number(): number {
    return this.pcg.number()
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.number() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.number() < probability
  }

  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.number() * items.length)]!
  }

  draw<A>(table: Weighted<A>): A {
    const target = this.number() * table.cumulative[table.cumulative.length - 1]!
    const index = table.cumulative.findIndex((c) => target < c)
    return table.items[index === -1 ? table.items.length - 1 : index]!
  }

  exponential(mean: number): number {
    return -Math.log(1 - this.number()) * mean
  }

  /** Log-normal around `median`; `spread` is the standard deviation of the logarithm. */
  logNormal(median: number, spread: number): number {
    // Box–Muller, one normal draw per call.
    const normal = Math.sqrt(-2 * Math.log(1 - this.number())) * Math.cos(2 * Math.PI * this.number())
    return median * Math.exp(spread * normal)
  }

  /** Failures before the first success, with mean `mean`. */
  geometric(mean: number): number {
    return Math.floor(Math.log(1 - this.number()) / Math.log(mean / (mean + 1)))
  }

  /**
   * A UUIDv7 for time `ms`, as the SDKs make them, whose random part is a name-based hash of the seed
   * and a counter: unique, and the same on every run with the seed.
   */
  uuidv7(ms: number): string {
    const time = Math.floor(ms).toString(16).padStart(12, "0")
    return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${uuidv5(DEMO_NAMESPACE, `${this.seed}:${this.serial++}`).slice(15)}`
  }
}

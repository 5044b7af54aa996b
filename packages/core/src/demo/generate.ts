import { Data } from "effect"
import { anonymousVisit, userVisit } from "./flows.js"
import { Population } from "./population.js"
import { Chance } from "./random.js"
import { rhythm } from "./rhythm.js"
import { type DemoEvent, SessionWriter } from "./session.js"

export interface DemoOptions {
  /** How many events; exactly this many are generated. */
  readonly events: number
  /** The same seed and options give the same events, byte for byte. Default 1. */
  readonly seed?: number | undefined
  /** Every event happens before this moment. */
  readonly end: Date
  /** How many days before `end` the data starts. Default 42. */
  readonly days?: number | undefined
}

export const DEFAULT_DEMO_SEED = 1
export const DEFAULT_DEMO_DAYS = 42

export class DemoOptionsError extends Data.TaggedError("DemoOptionsError")<{ readonly message: string }> {}

const DAY_MS = 86_400_000
/** Sessions that are a user's (when one comes back), and a returning anonymous visitor's; the rest are new visitors. */
const USER_SHARE = 0.45
const RETURNING_SHARE = 0.12
const EXISTING_USERS_MAX = 5000
/** Guess at events per session until there are sessions to measure. */
const FIRST_GUESS = 6

const validate = (options: DemoOptions) => {
  const seed = options.seed ?? DEFAULT_DEMO_SEED
  const days = options.days ?? DEFAULT_DEMO_DAYS
  const end = options.end.getTime()
  if (!Number.isSafeInteger(options.events) || options.events < 0)
    throw new DemoOptionsError({ message: "events must be a whole number, 0 or more" })
  if (!Number.isSafeInteger(seed)) throw new DemoOptionsError({ message: "the seed must be a whole number" })
  if (!(days > 0) || !Number.isFinite(days)) throw new DemoOptionsError({ message: "days must be a positive number" })
  if (Number.isNaN(end)) throw new DemoOptionsError({ message: "end must be a valid date" })
  return { total: options.events, seed, start: end - Math.round(days * DAY_MS), end }
}

interface Running {
  readonly writer: SessionWriter
  index: number
  readonly serial: number
}

/** Sessions under way, earliest next event first (ties by when the session started). */
class Schedule {
  private readonly heap: Array<Running> = []

  get size(): number {
    return this.heap.length
  }

  private before(a: Running, b: Running): boolean {
    const ta = a.writer.times[a.index]!
    const tb = b.writer.times[b.index]!
    return ta < tb || (ta === tb && a.serial < b.serial)
  }

  nextTime(): number {
    const top = this.heap[0]
    return top === undefined ? Infinity : top.writer.times[top.index]!
  }

  push(running: Running): void {
    const heap = this.heap
    heap.push(running)
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1
      if (!this.before(heap[i]!, heap[parent]!)) break
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  /** The earliest event; its session goes back in line if it has more. */
  take(): DemoEvent {
    const heap = this.heap
    const top = heap[0]!
    const event = top.writer.events[top.index++]!
    if (top.index < top.writer.events.length) this.siftDown()
    else {
      const last = heap.pop()!
      if (heap.length > 0) {
        heap[0] = last
        this.siftDown()
      }
    }
    return event
  }

  private siftDown(): void {
    const heap = this.heap
    for (let i = 0; ; ) {
      const left = 2 * i + 1
      const right = left + 1
      let least = i
      if (left < heap.length && this.before(heap[left]!, heap[least]!)) least = left
      if (right < heap.length && this.before(heap[right]!, heap[least]!)) least = right
      if (least === i) return
      ;[heap[i], heap[least]] = [heap[least]!, heap[i]!]
      i = least
    }
  }
}

/**
 * The demo data set, lazily and in time order: anonymous visitors, sign-ups, users coming back over
 * the weeks, their companies and flags, as posthog-js and posthog-node would send them. Sessions are
 * generated as they start and forgotten once their events are out, so memory stays small however
 * many events are asked for (only the people involved are remembered).
 */
export function* demoEvents(options: DemoOptions): Generator<DemoEvent, void, undefined> {
  const { end, seed, start, total } = validate(options)
  const chance = new Chance(seed)
  const pace = rhythm(start, end, chance)
  // Customers from before the span, so the first days have users too: in proportion, within reason.
  const population = new Population(chance, start, Math.min(EXISTING_USERS_MAX, Math.max(3, Math.round(total / 400))))
  const schedule = new Schedule()
  let scheduled = 0
  let sessions = 0
  let fraction = 0
  while (scheduled < total) {
    // Session starts follow the rhythm, paced so that the events left fill the time left: a step is
    // a share of the activity still ahead, as large as the share of events one session takes.
    const remaining = total - scheduled
    const perSession = sessions === 0 ? FIRST_GUESS : scheduled / sessions
    fraction += (1 - fraction) * Math.min((chance.exponential(1) * perSession) / remaining, 0.5)
    const at = pace.at(fraction)
    while (schedule.nextTime() <= at) yield schedule.take()

    const writer = new SessionWriter(chance, at, end, remaining)
    const who = chance.number()
    const user = who < USER_SHARE ? population.returningUser(at) : undefined
    const returning =
      user === undefined && who < USER_SHARE + RETURNING_SHARE ? population.returningVisitor(at) : undefined
    const visitor = user === undefined ? (returning ?? population.newVisitor(at)) : undefined
    if (user !== undefined) userVisit(writer, population, user)
    else anonymousVisit(writer, population, visitor!, returning !== undefined)
    for (const person of [user, visitor, visitor?.user]) {
      if (person === undefined) continue
      person.busyUntil = writer.now
      person.lastSeen = writer.now
    }
    if (writer.events.length === 0) continue
    scheduled += writer.events.length
    schedule.push({ writer, index: 0, serial: sessions++ })
  }
  while (schedule.size > 0) yield schedule.take()
}

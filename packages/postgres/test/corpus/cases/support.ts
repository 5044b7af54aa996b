import type { DemoModel, Event, Session } from "../model.js"
import { type Row, tally } from "../rows.js"

// What every part of the corpus shares: the shape of a case, and ways to pick events out of the model.

export interface Case {
  readonly name: string
  /** The query; a function of the time it runs when it reads `now()`. */
  readonly query: string | ((now: number, m: DemoModel) => string)
  readonly expected: (m: DemoModel, now: number) => ReadonlyArray<Row>
  /** The column names, when the case is about them. */
  readonly columns?: ReadonlyArray<string>
  /** Whether more rows than the (default) LIMIT exist. */
  readonly hasMore?: boolean
}

const DAY_MS = 86_400_000

export const where = (m: DemoModel, predicate: (e: Event) => boolean) => m.events.filter(predicate)
export const named = (m: DemoModel, ...names: Array<string>) => where(m, (e) => names.includes(e.event))
export const count = (m: DemoModel, predicate: (e: Event) => boolean) => where(m, predicate).length
export const prop = (e: Event, key: string) => e.properties[key]
export const num = (e: Event, key: string) => e.properties[key] as number
/** Rows of a key and how many items have it. */
export const counted = <T>(items: Iterable<T>, key: (item: T) => unknown): Array<Row> =>
  [...tally(items, key)].map(([k, list]) => [k, list.length])
export const pageviews = (m: DemoModel) => named(m, "$pageview")
/** Days since the epoch of a date in the time zone: for counting day boundaries. */
export const dayNumber = (m: DemoModel, ms: number) => Date.parse(`${m.tz.date(ms)}T00:00:00Z`) / DAY_MS
export const sessionRows = (m: DemoModel, predicate: (s: Session) => boolean = () => true) =>
  m.sessions.filter(predicate)
export const signedUp = (m: DemoModel) => new Set(named(m, "signed_up").map((e) => e.distinctId))

import type { DemoEvent } from "../src/index.js"

// What demo events say about persons and companies, worked out without Zed: tests compare what
// ingestion stored, or what queries answer, with these.

export interface DemoPerson {
  readonly distinctIds: Array<string>
  identified: boolean
  /**
   * What `$set` and `$set_once` in the events set (the latest `$set` wins, the first `$set_once`);
   * not what ingestion adds itself (`$browser`, `$initial_browser`…).
   */
  readonly properties: Record<string, unknown>
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Persons as the events define them: distinct ids joined by `$identify`. */
export const demoPersons = (events: ReadonlyArray<DemoEvent>) => {
  const parent = new Map<string, string>()
  const find = (id: string): string => {
    let root = id
    while (parent.get(root) !== root) root = parent.get(root)!
    parent.set(id, root)
    return root
  }
  const add = (id: string) => parent.has(id) || parent.set(id, id)
  for (const e of events) {
    add(e.distinct_id)
    const anon = e.event === "$identify" ? e.properties["$anon_distinct_id"] : undefined
    if (typeof anon === "string") {
      add(anon)
      parent.set(find(anon), find(e.distinct_id))
    }
  }
  const byRoot = new Map<string, DemoPerson>()
  for (const id of parent.keys()) {
    const person = byRoot.get(find(id)) ?? { distinctIds: [], identified: false, properties: {} }
    person.distinctIds.push(id)
    byRoot.set(find(id), person)
  }
  for (const e of events) {
    const person = byRoot.get(find(e.distinct_id))!
    if (e.event === "$identify") person.identified = true
    const setOnce = e.properties["$set_once"]
    if (isObject(setOnce))
      for (const [key, value] of Object.entries(setOnce))
        if (!(key in person.properties)) person.properties[key] = value
    const set = e.properties["$set"]
    if (isObject(set)) Object.assign(person.properties, set)
  }
  return { persons: [...byRoot.values()], personOf: (distinctId: string) => byRoot.get(find(distinctId))! }
}

/** Each company's properties: what its `$groupidentify` events set, the later winning. */
export const demoCompanies = (events: ReadonlyArray<DemoEvent>) => {
  const companies = new Map<string, Record<string, unknown>>()
  for (const e of events) {
    if (e.event !== "$groupidentify") continue
    const key = e.properties["$group_key"] as string
    companies.set(key, { ...companies.get(key), ...(e.properties["$group_set"] as Record<string, unknown>) })
  }
  return companies
}

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import { matchProperty } from "@zed/core/domain"
import { ADMIN_KEY, call, importEvents, postQuery, PROJECT_KEY } from "../../core/test/support.js"
import { backends } from "./backends.js"

// One meaning for property filters: the same table of cases (every operator against every kind of
// stored value) answered alike by the events list, the persons list and the query API's filters
// on every store, and by flag evaluation where the flags service gives an operator the same
// meaning (PostHog's flags differ on two points, marked below).

/** Values of the property `p`, one event and one person each, named by kind. */
const STORED: Readonly<Record<string, unknown>> = {
  string: "Chrome",
  empty: "",
  number: 42,
  numeric_text: "42",
  float: 1.5,
  true: true,
  false: false,
  null: null,
  array: ["a", "b"],
  object: { a: 1 },
  date: "2024-01-15T10:00:00Z"
}
const KINDS = [...Object.keys(STORED), "missing"]
const all = (...except: ReadonlyArray<string>) => KINDS.filter((k) => !except.includes(k))

interface Case {
  readonly operator: string
  readonly value?: unknown
  /** The kinds whose `p` matches. */
  readonly matches: ReadonlyArray<string>
  /** Where PostHog's flags service decides otherwise; absent when the flags have no such operator. */
  readonly flags?: ReadonlyArray<string> | "same"
}

const CASES: ReadonlyArray<Case> = [
  // A JSON null is no value: not set (the flags service counts the key as set).
  { operator: "is_set", matches: all("null", "missing"), flags: all("missing") },
  { operator: "is_not_set", matches: ["null", "missing"], flags: ["missing"] },
  { operator: "exact", value: "Chrome", matches: ["string"], flags: "same" },
  { operator: "exact", value: "chrome", matches: [], flags: ["string"] },
  { operator: "exact", value: "42", matches: ["number", "numeric_text"], flags: "same" },
  { operator: "exact", value: 42, matches: ["number", "numeric_text"], flags: "same" },
  { operator: "exact", value: 1.5, matches: ["float"], flags: "same" },
  { operator: "exact", value: true, matches: ["true"], flags: "same" },
  { operator: "exact", value: "true", matches: ["true"], flags: "same" },
  { operator: "exact", value: "", matches: ["empty"], flags: "same" },
  { operator: "exact", value: ["Chrome", "42"], matches: ["string", "number", "numeric_text"], flags: "same" },
  { operator: "exact", value: ["Chrome"], matches: ["string"], flags: "same" },
  // An empty list filters nothing out.
  { operator: "exact", value: [], matches: all() },
  { operator: "is_not", value: "Chrome", matches: all("string"), flags: "same" },
  { operator: "is_not", value: ["Chrome", "42"], matches: all("string", "number", "numeric_text"), flags: "same" },
  { operator: "icontains", value: "chr", matches: ["string"], flags: "same" },
  { operator: "icontains", value: "a", matches: ["false", "array", "object"], flags: "same" },
  { operator: "icontains", value: 4, matches: ["number", "numeric_text", "date"], flags: "same" },
  { operator: "icontains", value: ["chr", "fal"], matches: ["string", "false"] },
  { operator: "not_icontains", value: "chr", matches: all("string"), flags: "same" },
  { operator: "regex", value: "^Ch", matches: ["string"], flags: "same" },
  { operator: "regex", value: "^[0-9]+$", matches: ["number", "numeric_text"], flags: "same" },
  { operator: "not_regex", value: "^Ch", matches: all("string"), flags: "same" },
  // A pattern that does not compile matches nothing.
  { operator: "regex", value: "(Ch", matches: [], flags: "same" },
  // (The flags service answers no match for either operator, unless the key is absent.)
  { operator: "not_regex", value: "[a-", matches: all(), flags: ["missing"] },
  { operator: "gt", value: 40, matches: ["number", "numeric_text"], flags: "same" },
  { operator: "gt", value: "1", matches: ["number", "numeric_text", "float"], flags: "same" },
  { operator: "gte", value: 42, matches: ["number", "numeric_text"], flags: "same" },
  { operator: "lt", value: 2, matches: ["float"], flags: "same" },
  { operator: "lte", value: 1.5, matches: ["float"], flags: "same" },
  { operator: "gt", value: "abc", matches: [], flags: "same" },
  // The flags service also reads numbers as Unix timestamps.
  {
    operator: "is_date_before",
    value: "2024-02-01",
    matches: ["date"],
    flags: ["number", "numeric_text", "float", "date"]
  },
  { operator: "is_date_after", value: "2024-01-01", matches: ["date"], flags: "same" },
  { operator: "is_date_after", value: "2024-02-01", matches: [], flags: "same" }
]

const label = (c: Case) => `${c.operator} ${JSON.stringify(c.value)}`
const sorted = (kinds: ReadonlyArray<string>) => [...kinds].sort()

describe("property filters on flag evaluation", () => {
  it.each(CASES.filter((c) => c.flags !== undefined).map((c) => [label(c), c] as const))("%s", (_, c) => {
    const filter = {
      key: "p",
      type: "person",
      operator: c.operator,
      ...(c.value === undefined ? {} : { value: c.value })
    }
    const matched = KINDS.filter((kind) => matchProperty(filter, kind === "missing" ? {} : { p: STORED[kind] }))
    expect(sorted(matched)).toEqual(sorted(c.flags === "same" ? c.matches : c.flags!))
  })
})

describe.each(["memory", "pglite", "postgres", "chdb"])("property filters on %s", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  beforeAll(async () => {
    const backend = await backends("property-filters")[name]!()
    cleanup = backend.cleanup
    zed = await createZed({
      storage: backend.storage,
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    const timestamp = new Date(Date.UTC(2026, 0, 1)).toISOString()
    await importEvents(
      zed,
      PROJECT_KEY,
      KINDS.flatMap((kind) => {
        const p = kind === "missing" ? {} : { p: STORED[kind] }
        return [
          {
            event: kind,
            distinct_id: `event-${kind}`,
            timestamp,
            properties: { ...p, $process_person_profile: false }
          },
          { event: "$set", distinct_id: kind, timestamp, properties: { $set: { ...p, kind } } }
        ]
      })
    )
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  const param = (c: Case) =>
    encodeURIComponent(
      JSON.stringify([{ key: "p", operator: c.operator, ...(c.value === undefined ? {} : { value: c.value }) }])
    )

  it.each(CASES.map((c) => [label(c), c] as const))("%s", async (_, c) => {
    const events = await call(
      zed,
      `/api/projects/1/events/?limit=100&after=2025-12-31T00:00:00Z&properties=${param(c)}`
    )
    expect(events.status, events.text).toBe(200)
    const eventKinds = (events.json.results as Array<{ event: string }>).map((e) => e.event).filter((e) => e !== "$set")
    expect(sorted(eventKinds), "events list").toEqual(sorted(c.matches))

    const persons = await call(zed, `/api/projects/1/persons/?limit=100&properties=${param(c)}`)
    expect(persons.status, persons.text).toBe(200)
    const personKinds = (persons.json.results as Array<{ properties: { kind: string } }>).map((p) => p.properties.kind)
    expect(sorted(personKinds), "persons list").toEqual(sorted(c.matches))

    if (name === "memory") return
    const filters = {
      properties: [
        { key: "p", type: "event", operator: c.operator, ...(c.value === undefined ? {} : { value: c.value }) }
      ]
    }
    const queried = await postQuery(zed, 1, {
      query: { kind: "ZedQLQuery", query: "SELECT event FROM events WHERE event != '$set' AND {filters}", filters }
    })
    expect(queried.status, queried.text).toBe(200)
    expect(sorted((queried.json.results as Array<[string]>).map(([event]) => event)), "query filters").toEqual(
      sorted(c.matches)
    )
  })
})

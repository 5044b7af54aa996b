import { beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "@zed/core"
import { ADMIN_KEY, importEvents, PROJECT_KEY } from "../../core/test/support.js"
import { CSV_CHUNK } from "../../core/src/flags/staticCohortSources.js"
import { apiSuite } from "./apiSuite.js"

// Static cohorts from a CSV upload (multipart `csv`, as PostHog's app sends it: distinct ids, e-mails
// or person ids) and from an insight's persons ("save as cohort"). The members expected are worked
// out here from the persons the test made.

const DAY = "2026-03-01"
const T0 = Date.parse(`${DAY}T10:00:00Z`)
const PEOPLE = Array.from({ length: 24 }, (_, i) => ({ i, email: `p${i}@x.test`, buys: i % 3 === 0 }))

describe.each(["memory", "pglite", "postgres", "chdb"])("%s static cohorts", (name) => {
  const suite = apiSuite("cohorts-static", name)
  const { send } = suite
  let zed: Zed
  const uuidOf = new Map<string, string>()

  /** A multipart request with the CSV as a file, as PostHog's app uploads it. */
  const upload = async (method: string, path: string, fields: Record<string, string>, csv: string) => {
    const form = new FormData()
    for (const [key, value] of Object.entries(fields)) form.set(key, value)
    form.set("csv", new Blob([csv], { type: "text/csv" }), "people.csv")
    const response = await zed.handler(
      new Request(`http://zed.test/api/projects/1${path}`, {
        method,
        body: form,
        headers: { authorization: `Bearer ${ADMIN_KEY}` }
      })
    )
    const text = await response.text()
    return { status: response.status, text, json: JSON.parse(text) }
  }
  const members = async (id: number) => {
    const { count, ids } = await suite.members(id)
    expect(count).toBe(ids.length)
    return ids
  }
  const ids = (pick: (p: (typeof PEOPLE)[number]) => boolean) =>
    PEOPLE.filter(pick)
      .map((p) => `u${p.i}`)
      .sort()

  beforeAll(async () => {
    zed = suite.zed
    await importEvents(
      zed,
      PROJECT_KEY,
      PEOPLE.flatMap((p) => [
        {
          event: "$pageview",
          distinct_id: `u${p.i}`,
          timestamp: new Date(T0 + p.i * 1000).toISOString(),
          properties: { $set: { email: p.email } }
        },
        ...(p.buys
          ? [{ event: "purchase", distinct_id: `u${p.i}`, timestamp: new Date(T0 + p.i * 1000 + 500).toISOString() }]
          : [])
      ])
    )
    const listed = await send("GET", "/persons/?limit=100")
    for (const p of listed.json.results as Array<{ uuid: string; distinct_ids: Array<string> }>)
      uuidOf.set(p.distinct_ids[0]!, p.uuid)
    expect(uuidOf.size).toBe(PEOPLE.length)
  })

  it("lists the persons of a CSV of distinct ids without a header, unknown ones left out", async () => {
    const wanted = PEOPLE.filter((p) => p.i % 4 === 1)
    const csv = [...wanted.map((p) => `u${p.i}`), "nobody", "u1", ""].join("\n")
    const res = await upload("POST", "/cohorts/", { name: "From ids", is_static: "true" }, csv)
    expect(res.status, res.text).toBe(201)
    expect(res.json.is_static).toBe(true)
    expect(res.json.count).toBe(wanted.length)
    expect(await members(res.json.id)).toEqual(ids((p) => p.i % 4 === 1))
  })

  it("reads the column headed email or person_id, quoted fields and CRLF included", async () => {
    const byEmail = PEOPLE.filter((p) => p.i < 5)
    const emails = await upload(
      "POST",
      "/cohorts/",
      { name: "From e-mails", is_static: "true" },
      `"name, full",email\r\n${byEmail.map((p) => `"Person ""${p.i}"", here",${p.email}`).join("\r\n")}\r\n`
    )
    expect(emails.status, emails.text).toBe(201)
    expect(await members(emails.json.id)).toEqual(ids((p) => p.i < 5))
    const byUuid = PEOPLE.filter((p) => p.i >= 20)
    const uuids = await upload(
      "POST",
      "/cohorts/",
      { name: "From uuids" },
      `note,person_id\n${byUuid.map((p) => `x,${uuidOf.get(`u${p.i}`)}`).join("\n")}\nx,not-a-uuid\n`
    )
    expect(uuids.status, uuids.text).toBe(201)
    expect(await members(uuids.json.id)).toEqual(ids((p) => p.i >= 20))
    // A second upload to the cohort adds to it.
    const more = await upload("PATCH", `/cohorts/${uuids.json.id}/`, {}, "distinct_id\nu0\nu2\n")
    expect(more.status, more.text).toBe(200)
    expect(more.json.count).toBe(byUuid.length + 2)
    expect(await members(uuids.json.id)).toEqual(ids((p) => p.i >= 20 || p.i === 0 || p.i === 2))
  })

  it("looks a long CSV up a chunk at a time, persons in every chunk found", async () => {
    // Unknown ids pad the file so the persons named fall into three chunks, one of them at a chunk's edge.
    const named = PEOPLE.filter((p) => p.i % 5 === 2)
    const lines = Array.from({ length: CSV_CHUNK * 2 + 7 }, (_, i) => `missing-${i}`)
    const at = [0, CSV_CHUNK - 1, CSV_CHUNK, CSV_CHUNK + 500, CSV_CHUNK * 2 + 3]
    expect(named.length).toBe(at.length)
    named.forEach((p, k) => {
      lines[at[k]!] = `u${p.i}`
    })
    const res = await upload("POST", "/cohorts/", { name: "Long", is_static: "true" }, lines.join("\n"))
    expect(res.status, res.text).toBe(201)
    expect(res.json.count).toBe(named.length)
    expect(await members(res.json.id)).toEqual(ids((p) => p.i % 5 === 2))
    const byEmail = await upload(
      "POST",
      "/cohorts/",
      { name: "Long e-mails", is_static: "true" },
      ["email", ...lines.map((l) => (l.startsWith("u") ? `p${l.slice(1)}@x.test` : `${l}@x.test`))].join("\n")
    )
    expect(byEmail.status, byEmail.text).toBe(201)
    expect(await members(byEmail.json.id)).toEqual(ids((p) => p.i % 5 === 2))
  })

  it("refuses a CSV that lists no one, naming the field", async () => {
    for (const csv of ["", "email\n", "\n , \n"]) {
      const res = await upload("POST", "/cohorts/", { name: "Empty", is_static: "true" }, csv)
      expect(res.status, res.text).toBe(400)
      expect(res.json).toMatchObject({ type: "validation_error", attr: "csv" })
    }
    expect(
      (await send("GET", "/cohorts/?limit=100")).json.results.filter((c: { name: string }) => c.name === "Empty")
    ).toEqual([])
  })

  it("refuses a CSV for a dynamic cohort", async () => {
    const dynamic = await send("POST", "/cohorts/", {
      name: "Dynamic",
      filters: { properties: { type: "AND", values: [{ key: "email", value: "p1@x.test", type: "person" }] } }
    })
    expect(dynamic.status, dynamic.text).toBe(201)
    const res = await upload("PATCH", `/cohorts/${dynamic.json.id}/`, {}, "u1\n")
    expect(res.status, res.text).toBe(400)
    expect(res.json.attr).toBe("csv")
    const made = await upload("POST", "/cohorts/", { name: "x", is_static: "false" }, "u1\n")
    expect(made.status, made.text).toBe(400)
    expect(made.json.attr).toBe("csv")
  })

  // The in-memory store runs no queries.
  it.skipIf(name === "memory")("saves an insight's persons as a static cohort", async () => {
    const trend = {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "purchase" }],
      interval: "day",
      dateRange: { date_from: "2026-02-28", date_to: "2026-03-02" }
    }
    const res = await send("POST", "/cohorts/", {
      name: "Buyers that day",
      is_static: true,
      query: { kind: "InsightActorsQuery", source: trend, day: DAY, series: 0 }
    })
    expect(res.status, res.text).toBe(201)
    expect(res.json.count).toBe(PEOPLE.filter((p) => p.buys).length)
    expect(await members(res.json.id)).toEqual(ids((p) => p.buys))
    const searched = await send("POST", "/cohorts/", {
      name: "Searched",
      query: { kind: "ActorsQuery", search: "p1" }
    })
    expect(searched.status, searched.text).toBe(201)
    expect(await members(searched.json.id)).toEqual(ids((p) => p.email.startsWith("p1")))
    const refused = await send("POST", "/cohorts/", {
      name: "Bad",
      query: {
        kind: "InsightActorsQuery",
        source: { ...trend, series: [{ kind: "EventsNode", event: "x", math: "nope" }] }
      }
    })
    expect(refused.status, refused.text).toBe(400)
    expect(refused.json.attr, refused.text).toMatch(/^query/)
  })
})

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Zed } from "../src/index.js"
import { call, issueKey, memoryZed } from "./support.js"

// The query API's contract where no database is needed: validation, errors with positions, the
// auxiliary endpoints and scopes. Queries running for real are tested on PGlite and PostgreSQL in
// @zed/postgres.

let zed: Zed
beforeAll(async () => {
  zed = await memoryZed()
})
afterAll(() => zed.close())

const query = (body: unknown, key?: string) =>
  call(zed, "/api/projects/1/query/", { method: "POST", body: JSON.stringify(body), ...(key ? { key } : {}) })

describe("POST …/query/", () => {
  it("answers syntax and resolution errors with the message and where they are", async () => {
    const syntax = await query({ query: { kind: "ZedQLQuery", query: "select 1 +" } })
    expect(syntax.status).toBe(400)
    expect(syntax.json).toEqual({
      type: "validation_error",
      code: "zedql_syntax_error",
      detail: "no viable alternative at input 'select 1 +'",
      attr: null,
      start: 10,
      end: 10
    })
    const text = "SELECT nope FROM events"
    const unknown = await query({ query: { kind: "HogQLQuery", query: text } })
    expect(unknown.json).toEqual({
      type: "validation_error",
      code: "zedql_query_error",
      detail: "Unable to resolve field: nope",
      attr: null,
      start: 7,
      end: 11
    })
    const fn = await query({ query: { kind: "ZedQLQuery", query: "SELECT pg_sleep(100)" } })
    expect(fn.json).toMatchObject({ code: "zedql_query_error", detail: "Unsupported function call 'pg_sleep(...)'" })
  })

  it("validates the request: kinds, extra keys, refresh values", async () => {
    const kind = await query({ query: { kind: "SessionsTimelineQuery" } })
    expect(kind.status).toBe(400)
    expect(kind.json).toMatchObject({
      type: "validation_error",
      code: "unsupported_kind",
      attr: "query__kind",
      detail: expect.stringContaining("TrendsQuery")
    })
    const extra = await query({ query: { kind: "ZedQLQuery", query: "SELECT 1", surprise: true } })
    expect(extra.status).toBe(400)
    expect(extra.json.attr).toBe("query__surprise")
    const refresh = await query({ query: { kind: "ZedQLQuery", query: "SELECT 1" }, refresh: "sometimes" })
    expect(refresh.json).toMatchObject({ attr: "refresh" })
  })

  it("refuses a date range bound that is not a date, naming it", async () => {
    for (const date_from of ["constructor", "last tuesday", "2024-13-45", "-7 days"]) {
      const override = await query({
        query: { kind: "ZedQLQuery", query: "SELECT 1" },
        filters_override: { date_from }
      })
      expect(override.status).toBe(400)
      expect(override.json).toMatchObject({ type: "validation_error", attr: "filters_override__date_from" })
      const own = await query({
        query: { kind: "ZedQLQuery", query: "SELECT 1", filters: { dateRange: { date_from } } }
      })
      expect(own.json).toMatchObject({ type: "validation_error", attr: "query__filters__dateRange__date_from" })
    }
  })

  it("says in-memory storage cannot run queries", async () => {
    const res = await query({ query: { kind: "ZedQLQuery", query: "SELECT 1" } })
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ code: "zedql_error", detail: expect.stringContaining("need a SQL store") })
  })

  it("needs query:read", async () => {
    const flags = await issueKey(zed, ["feature_flag:read"])
    expect((await query({ query: { kind: "ZedQLQuery", query: "SELECT 1" } }, flags)).status).toBe(403)
  })
})

describe("the query API's other endpoints", () => {
  it("answers 404 for a query it does not know, on GET and DELETE", async () => {
    expect((await call(zed, "/api/projects/1/query/nothing-here/")).status).toBe(404)
    expect((await call(zed, "/api/projects/1/query/nothing-here/", { method: "DELETE" })).status).toBe(404)
  })

  it("checks auth for async with the query scope", async () => {
    const ok = await call(zed, "/api/environments/1/query/check_auth_for_async/", { method: "POST", body: "{}" })
    expect(ok.status).toBe(200)
    expect(ok.text).toBe("")
    const flags = await issueKey(zed, ["feature_flag:read"])
    expect(
      (await call(zed, "/api/projects/1/query/check_auth_for_async/", { method: "POST", body: "{}", key: flags }))
        .status
    ).toBe(403)
  })

  it("refuses a missing or long prompt for draft_sql, and says it needs a language model", async () => {
    expect((await call(zed, "/api/projects/1/query/draft_sql/")).json).toMatchObject({
      code: "required",
      attr: "prompt"
    })
    expect((await call(zed, `/api/projects/1/query/draft_sql/?prompt=${"x".repeat(401)}`)).json).toMatchObject({
      code: "too_long",
      attr: "prompt"
    })
    const draft = await call(zed, "/api/projects/1/query/draft_sql/?prompt=pageviews%20per%20day")
    expect(draft.status).toBe(501)
    expect(draft.json).toMatchObject({ type: "server_error", code: "not_implemented" })
  })
})

import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createZed, type Zed } from "@zed/core"
import fc from "fast-check"
import {
  ADMIN_KEY,
  call,
  importEvents,
  issueKey,
  postQuery,
  PROJECT_KEY,
  zedqlRequest
} from "../../core/test/support.js"
import { backends, capQueryTimeout } from "./backends.js"
import { activeOnServer } from "./server.js"

// The ZedQL security corpus, through the query API on both SQL engines: from project 1, every way
// of reaching project 2's rows (constructs, raw tables, functions, comments and string tricks,
// settings, writes, huge limits, runaway queries) is refused or answers project 1's rows only.
// Project 2 shares distinct ids, a session id and a group key with project 1, so that a join or a
// subquery missing its project condition would pick up its rows; every value of project 2
// carries SECRET, which no query sent here contains, so it must never appear in a response.

const SECRET = "secret-of-project-2"
const SHARED_IDS = ["shared-a", "shared-b"]
const SESSION = "shared-session"
const ORG = "shared-org"
// Stopped past this, as Zed's own limit (60 s) would stop it: tests cannot wait a minute.
const STATEMENT_LIMIT_MS = 1_500

const at = (minute: number) => new Date(Date.UTC(2025, 0, 10, 12, minute)).toISOString()

type Raw = {
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: Record<string, unknown>
}

// Project 1's events start after project 2's: a session computed over both would start with SECRET's URL.
const PROJECT_1: ReadonlyArray<Raw> = [
  ...Array.from({ length: 9 }, (_, i): Raw => {
    const distinctId = i < 6 ? SHARED_IDS[i % 2]! : "p1-only"
    return {
      event: i % 3 === 0 ? "signed_up" : "$pageview",
      distinct_id: distinctId,
      timestamp: at(30 + i),
      properties: {
        $session_id: SESSION,
        $current_url: `https://one.example/${i}`,
        $groups: { org: ORG },
        $set: { email: `${distinctId}@one.example` }
      }
    }
  }),
  {
    event: "$groupidentify",
    distinct_id: "p1-only",
    timestamp: at(40),
    properties: { $group_type: "org", $group_key: ORG, $group_set: { name: "Org one" } }
  }
]

const PROJECT_2: ReadonlyArray<Raw> = [
  {
    event: "$groupidentify",
    distinct_id: `${SECRET}-user`,
    timestamp: at(0),
    properties: { $group_type: "org", $group_key: ORG, $group_set: { name: SECRET } }
  },
  ...Array.from(
    { length: 12 },
    (_, i): Raw => ({
      event: i % 2 === 0 ? `${SECRET}-event` : "$pageview",
      distinct_id: i < 8 ? SHARED_IDS[i % 2]! : `${SECRET}-user`,
      timestamp: at(1 + i),
      properties: {
        secret: SECRET,
        $session_id: SESSION,
        $current_url: `https://${SECRET}.example/`,
        $groups: { org: ORG },
        $set: { email: `${SECRET}@example.com` }
      }
    })
  ),
  // Merges shared-a into project 2's own person.
  {
    event: "$identify",
    distinct_id: `${SECRET}-user`,
    timestamp: at(20),
    properties: { $anon_distinct_id: "shared-a", $set: { email: `${SECRET}@example.com` } }
  }
]

// What project 1 holds, from its events alone.
const N1 = PROJECT_1.length
const N2 = PROJECT_2.length
const IDS_1 = [...new Set(PROJECT_1.map((e) => e.distinct_id))].sort()
const EMAILS_1 = [
  ...new Set(PROJECT_1.flatMap((e) => (e.properties.$set ? [(e.properties.$set as { email: string }).email] : [])))
].sort()
const PAGEVIEWS_1 = PROJECT_1.filter((e) => e.event === "$pageview").length
const FIRST_URL_1 = PROJECT_1.filter((e) => e.properties.$current_url !== undefined).sort((a, b) =>
  a.timestamp.localeCompare(b.timestamp)
)[0]!.properties.$current_url
const GROUPED_1 = PROJECT_1.filter((e) => e.properties.$groups !== undefined).length
const SELF_JOIN_1 = IDS_1.reduce((sum, id) => sum + PROJECT_1.filter((e) => e.distinct_id === id).length ** 2, 0)

// Names every JavaScript object answers to: a lookup by a user's name must not find them.
const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "__defineGetter__"
]

/** A ZedQL string literal holding `text` exactly. */
const literal = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
/** A ZedQL identifier named `name` exactly (the grammar takes a backquote doubled, not escaped). */
const identifier = (name: string) => `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "``")}\``

const sorted = (rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  [...rows]
    .map((row) => JSON.stringify(row))
    .sort()
    .map((row) => JSON.parse(row))

/** What each accepted query must answer: project 1's rows, computed above. */
type Expect =
  | { readonly refused: string }
  | { readonly rows: ReadonlyArray<ReadonlyArray<unknown>> }
  | { readonly unordered: ReadonlyArray<ReadonlyArray<unknown>> }

const count = (n: number): Expect => ({ rows: [[n]] })
const refused = (code: string): Expect => ({ refused: code })
const SYNTAX = refused("zedql_syntax_error")
const QUERY = refused("zedql_query_error")

const CORPUS: ReadonlyArray<readonly [string, string, Expect]> = [
  // The tables themselves.
  ["events", "SELECT count() FROM events", count(N1)],
  ["events' distinct ids", "SELECT DISTINCT distinct_id FROM events", { unordered: IDS_1.map((id) => [id]) }],
  ["persons", "SELECT properties.email FROM persons", { unordered: EMAILS_1.map((email) => [email]) }],
  ["person_distinct_ids", "SELECT distinct_id FROM person_distinct_ids", { unordered: IDS_1.map((id) => [id]) }],
  [
    "sessions",
    "SELECT session_id, $entry_current_url, $pageview_count FROM sessions",
    { rows: [[SESSION, FIRST_URL_1, PAGEVIEWS_1]] }
  ],
  ["groups", "SELECT key, properties.name FROM groups", { rows: [[ORG, "Org one"]] }],
  // Project conditions of the user's own.
  ["team_id of another project", "SELECT count() FROM events WHERE team_id = 2", count(0)],
  ["team_id OR 1=1", "SELECT count() FROM events WHERE team_id = 2 OR 1 = 1", count(N1)],
  ["team_id IN both", "SELECT count() FROM events WHERE team_id IN (1, 2)", count(N1)],
  ["team_id of persons", "SELECT count() FROM persons WHERE team_id != 1 OR true", count(EMAILS_1.length)],
  ["the team ids there are", "SELECT DISTINCT team_id FROM events", { rows: [[1]] }],
  ["project_id is no field", "SELECT count() FROM events WHERE project_id = 2", QUERY],
  ["PREWHERE", "SELECT count() FROM events PREWHERE team_id = 2 OR 1 = 1", count(N1)],
  // Every construct that reads a table.
  ["subquery", "SELECT count() FROM (SELECT * FROM events WHERE 1 = 1)", count(N1)],
  ["subquery in SELECT", "SELECT (SELECT count() FROM events)", count(N1)],
  [
    "IN subquery",
    `SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM events WHERE team_id = 2)`,
    count(0)
  ],
  [
    "IN subquery of persons",
    "SELECT count() FROM persons WHERE id IN (SELECT person_id FROM events)",
    count(EMAILS_1.length)
  ],
  [
    "explicit JOIN on distinct ids",
    "SELECT count() FROM events a JOIN events b ON a.distinct_id = b.distinct_id",
    count(SELF_JOIN_1)
  ],
  [
    "LEFT JOIN persons",
    "SELECT DISTINCT p.properties.email FROM events e LEFT JOIN persons p ON e.person_id = p.id",
    { unordered: EMAILS_1.map((e) => [e]) }
  ],
  [
    "JOIN person_distinct_ids",
    "SELECT count() FROM events e JOIN person_distinct_ids d ON e.distinct_id = d.distinct_id",
    count(N1)
  ],
  ["FULL JOIN groups", "SELECT count() FROM groups g FULL JOIN groups h ON g.key = h.key", count(1)],
  ["CROSS JOIN", "SELECT count() FROM events a, events b", count(N1 * N1)],
  ["lazy person", "SELECT DISTINCT person.properties.email FROM events", { unordered: EMAILS_1.map((e) => [e]) }],
  [
    "lazy pdi and its person",
    "SELECT DISTINCT pdi.person.properties.email FROM events",
    { unordered: EMAILS_1.map((e) => [e]) }
  ],
  [
    "lazy session",
    "SELECT DISTINCT session.$entry_current_url, session.$pageview_count FROM events WHERE $session_id IS NOT NULL",
    { rows: [[FIRST_URL_1, PAGEVIEWS_1]] }
  ],
  [
    "lazy group",
    "SELECT group_0.properties.name, count() FROM events WHERE $group_0 IS NOT NULL GROUP BY 1",
    { rows: [["Org one", GROUPED_1]] }
  ],
  ["lazy pdi of persons", "SELECT DISTINCT pdi.distinct_id FROM persons", { unordered: IDS_1.map((id) => [id]) }],
  ["CTE", "WITH e AS (SELECT * FROM events) SELECT count() FROM e", count(N1)],
  [
    "CTE named after a table",
    "WITH persons AS (SELECT * FROM events WHERE team_id = 2) SELECT count() FROM persons",
    count(0)
  ],
  ["column CTE", "WITH (SELECT count() FROM events) AS n SELECT n", count(N1)],
  [
    "UNION ALL",
    "SELECT count() FROM events UNION ALL SELECT count() FROM events WHERE team_id = 2",
    { unordered: [[N1], [0]] }
  ],
  [
    "UNION DISTINCT of ids",
    "SELECT distinct_id FROM events UNION DISTINCT SELECT distinct_id FROM person_distinct_ids",
    { unordered: IDS_1.map((id) => [id]) }
  ],
  [
    "INTERSECT",
    "SELECT distinct_id FROM events INTERSECT SELECT distinct_id FROM person_distinct_ids WHERE 1 = 1",
    { unordered: IDS_1.map((id) => [id]) }
  ],
  ["window over everything", "SELECT count() OVER () FROM events LIMIT 1", count(N1)],
  ["ARRAY JOIN", "SELECT count() FROM events ARRAY JOIN [1, 2] AS x", count(2 * N1)],
  // Names.
  ["a table aliased as another", "SELECT count() FROM events AS persons", count(N1)],
  ["quoted identifiers", 'SELECT count() FROM "events" AS "e" WHERE "e"."team_id" = 2', count(0)],
  ["backquoted table", "SELECT count() FROM `events`", count(N1)],
  ["qualified table", "SELECT count() FROM public.events", QUERY],
  ["schema-qualified quoted", 'SELECT count() FROM "public"."events"', QUERY],
  ["the raw distinct ids table", "SELECT * FROM _person_distinct_ids", QUERY],
  ["a hidden field", "SELECT _id FROM persons", QUERY],
  ["pg_catalog", "SELECT * FROM pg_catalog.pg_tables", QUERY],
  ["pg_tables", "SELECT * FROM pg_tables", QUERY],
  ["information_schema", "SELECT * FROM information_schema.tables", QUERY],
  ["the query cache", "SELECT * FROM query_cache", QUERY],
  ["query statuses", "SELECT * FROM query_statuses", QUERY],
  ["personal API keys", "SELECT * FROM personal_api_keys", QUERY],
  ["projects", "SELECT * FROM projects", QUERY],
  ["ClickHouse's system tables", "SELECT * FROM system.tables", QUERY],
  // Table functions, which would read anything.
  ["numbers()", "SELECT * FROM numbers(10)", QUERY],
  ["generate_series()", "SELECT * FROM generate_series(1, 3)", QUERY],
  ["a table with arguments", "SELECT count() FROM events(2)", QUERY],
  ["a table with a condition as argument", "SELECT count() FROM events('team_id = 2')", QUERY],
  ["postgresql()", "SELECT * FROM postgresql('127.0.0.1:5432', 'test', 'events', 'postgres', '')", QUERY],
  ["file()", "SELECT * FROM file('/etc/passwd')", QUERY],
  ["url()", "SELECT * FROM url('http://127.0.0.1/', CSV)", QUERY],
  // Functions of the database.
  ...[
    "pg_sleep(10)",
    "pg_read_file('/etc/passwd')",
    "pg_ls_dir('.')",
    "current_setting('data_directory')",
    "set_config('statement_timeout', '0', false)",
    "dblink('dbname=test', 'SELECT 1')",
    "lo_import('/etc/passwd')",
    "version()",
    "query_to_xml('SELECT * FROM events', true, true, '')",
    "pg_cancel_backend(1)",
    "pg_terminate_backend(1)",
    "txid_current()",
    "current_user()",
    "inet_server_addr()",
    "sleep(3)",
    "currentDatabase()",
    "getSetting('max_execution_time')",
    "file('/etc/passwd')",
    "nextval('events_id_seq')"
  ].map((fn): readonly [string, string, Expect] => [`function ${fn.split("(")[0]}`, `SELECT ${fn}`, QUERY]),
  ["a database function's name as a field", "SELECT pg_sleep FROM events", QUERY],
  // Comments and strings.
  ["a line comment", "SELECT count() FROM events -- WHERE team_id = 1", count(N1)],
  ["a block comment", "SELECT count() FROM events /* WHERE 1 = 0 */ WHERE team_id = 2 /* OR 1 = 1 */", count(0)],
  ["a nested comment", "SELECT count() FROM events /* a /* b */ WHERE team_id = 2 */", SYNTAX],
  ["an unterminated comment", "SELECT count() FROM events /* WHERE team_id = 2", SYNTAX],
  [
    "a quote closed in a string",
    "SELECT count() FROM events WHERE distinct_id = 'x'' OR team_id = 2 OR ''1'' = ''1'",
    count(0)
  ],
  ["an escaped quote", "SELECT count() FROM events WHERE distinct_id = 'x\\' OR 1 = 1 --'", count(0)],
  ["a backslash at the end", "SELECT count() FROM events WHERE distinct_id = 'x\\\\' OR team_id = 2", count(0)],
  ["an escaped quote's value", "SELECT 'it\\'s', 'it''s'", { rows: [["it's", "it's"]] }],
  ["dollar quoting", "SELECT $$ FROM events WHERE team_id = 2 $$", SYNTAX],
  ["dollar quoting in a string", "SELECT count() FROM events WHERE distinct_id = '$$' OR team_id = 2 --'", count(0)],
  ["E'' strings", "SELECT E'\\x41'", SYNTAX],
  ["U&'' strings", "SELECT U&'\\0041'", SYNTAX],
  ["a unicode escape", "SELECT count() FROM events WHERE distinct_id = '\\u0027 OR 1 = 1'", SYNTAX],
  ["stacked statements", "SELECT 1; DROP TABLE events", SYNTAX],
  ["a stacked statement after a comment", "SELECT 1 -- \n; SELECT * FROM query_statuses", SYNTAX],
  ["a semicolon in a string", "SELECT count() FROM events WHERE distinct_id = '; DROP TABLE events; --'", count(0)],
  ["a trailing semicolon", "SELECT count() FROM events;", count(N1)],
  // Settings and writes.
  ["SETTINGS", "SELECT count() FROM events SETTINGS max_execution_time = 0", SYNTAX],
  ["SETTINGS of a subquery", "SELECT * FROM (SELECT 1 SETTINGS readonly = 0)", SYNTAX],
  ["SET", "SET statement_timeout = 0", SYNTAX],
  ["INSERT", "INSERT INTO events (event) VALUES ('x')", SYNTAX],
  ["UPDATE", "UPDATE events SET event = 'x'", SYNTAX],
  ["DELETE", "DELETE FROM events", SYNTAX],
  ["DROP", "DROP TABLE events", SYNTAX],
  ["ALTER", "ALTER TABLE events DELETE WHERE 1", SYNTAX],
  ["a write in a CTE", "WITH gone AS (DELETE FROM events RETURNING 1) SELECT count() FROM gone", SYNTAX],
  // Limits.
  ["LIMIT past 64 bits", "SELECT count() FROM events LIMIT 99999999999999999999", QUERY],
  ["a negative LIMIT", "SELECT count() FROM events LIMIT -1", { refused: "" }],
  ["LIMIT BY", "SELECT event FROM events LIMIT 1 BY event", { refused: "" }],
  ["IN COHORT", "SELECT count() FROM events WHERE person_id IN COHORT 1", QUERY]
]

describe.each(["pglite", "postgres", "chdb"])("%s: ZedQL from project 1", (name) => {
  let zed: Zed
  let cleanup: () => Promise<void>
  let database: string | undefined
  let other: { readonly id: number; readonly api_token: string }

  beforeAll(async () => {
    const backend = await backends("zedql-security")[name]!()
    cleanup = backend.cleanup
    database = backend.url && new URL(backend.url).pathname.slice(1)
    zed = await createZed({
      storage: capQueryTimeout(backend.storage, STATEMENT_LIMIT_MS),
      bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY }
    })
    other = (await call(zed, "/api/projects/", { method: "POST", body: JSON.stringify({ name: "Other" }) })).json
    expect(other.id).not.toBe(1)
    await importEvents(zed, PROJECT_KEY, PROJECT_1)
    await importEvents(zed, other.api_token, PROJECT_2)
  })
  afterAll(async () => {
    await zed.close()
    await cleanup()
  })

  /** A query from project 1, with the admin key (which may read project 2): nothing of project 2 comes back, and no 5xx. */
  const probe = async (body: unknown, key?: string) => {
    const res = await postQuery(zed, 1, body, key)
    expect(res.status, res.text).toBeLessThan(500)
    expect(res.text).not.toContain(SECRET)
    if (res.status >= 400) expectErrorBody(res.json)
    return res
  }
  const probeText = (text: string) => probe(zedqlRequest(text))

  const expectErrorBody = (json: Record<string, unknown>) => {
    expect(json).toEqual(
      expect.objectContaining({ type: expect.any(String), code: expect.any(String), detail: expect.any(String) })
    )
    // The field at fault, when a request field is (a date range bound, say); null for the query text.
    expect(json.attr === null || typeof json.attr === "string").toBe(true)
    if (String(json.code).startsWith("zedql_")) {
      expect(json).toHaveProperty("start")
      expect(json).toHaveProperty("end")
    }
  }

  it("project 2 holds its rows: the corpus has something to leak", async () => {
    const res = await postQuery(
      zed,
      other.id,
      zedqlRequest("SELECT count(), countIf(properties.secret IS NOT NULL) FROM events")
    )
    expect(res.json.results).toEqual([[N2, N2 - 2]])
    expect((await postQuery(zed, other.id, zedqlRequest("SELECT properties.name FROM groups"))).text).toContain(SECRET)
  })

  it.each(CORPUS)("%s", async (_label, text, expected) => {
    const res = await probeText(text)
    if ("refused" in expected) {
      expect(res.status, res.text).toBe(400)
      if (expected.refused !== "") expect(res.json.code).toBe(expected.refused)
      // A position, when there is one, lies within the query.
      const { end, start } = res.json as { start: number | null; end: number | null }
      if (start !== null) expect(0 <= start && start <= end! && end! <= text.length).toBe(true)
    } else {
      expect(res.status, res.text).toBe(200)
      if ("rows" in expected) expect(res.json.results).toEqual(expected.rows)
      else expect(sorted(res.json.results)).toEqual(sorted(expected.unordered))
    }
  })

  it("SELECT * of every table answers project 1's rows only", async () => {
    for (const table of ["events", "persons", "person_distinct_ids", "sessions", "groups"]) {
      const res = await probeText(`SELECT * FROM ${table}`)
      expect(res.status, table).toBe(200)
      expect(res.json.results.length, table).toBe(
        { events: N1, persons: EMAILS_1.length, person_distinct_ids: IDS_1.length, sessions: 1, groups: 1 }[table]
      )
    }
  })

  it("answers at most the hard cap of rows, whatever the LIMIT", async () => {
    const capped = await probeText("SELECT arrayJoin(range(60000)) AS n ORDER BY n LIMIT 1000000")
    expect(capped.status).toBe(200)
    expect(capped.json.results.length).toBe(50_000)
    expect(capped.json.results.at(-1)).toEqual([49_999])
    expect(capped.json.zedql).toMatch(/LIMIT 50000$/)
    // Without a LIMIT, a page of 100 and whether there is more.
    const paged = await probeText("SELECT arrayJoin(range(60000)) AS n ORDER BY n")
    expect(paged.json).toMatchObject({ limit: 100, offset: 0, hasMore: true })
    expect(paged.json.results.length).toBe(100)
    // An OFFSET far past the rows answers none; one past 64 bits is refused.
    expect((await probeText("SELECT distinct_id FROM events LIMIT 10 OFFSET 1000000000")).json.results).toEqual([])
    expect((await probeText("SELECT distinct_id FROM events LIMIT 10 OFFSET 99999999999999999999")).status).toBe(400)
  })

  it("stops a runaway query at the statement time limit, and the database answers right after", async () => {
    const started = performance.now()
    const res = await probeText(
      "SELECT count() FROM (SELECT arrayJoin(range(1000000)) AS a) AS x CROSS JOIN (SELECT arrayJoin(range(1000000)) AS b) AS y CROSS JOIN events"
    )
    expect(res.status).toBe(400)
    expect(res.json.code).toBe("query_timeout")
    expect(performance.now() - started).toBeLessThan(STATEMENT_LIMIT_MS + 5_000)
    if (database !== undefined) expect(await activeOnServer({ database })).toBe(false)
    const after = performance.now()
    expect((await probeText("SELECT count() FROM events")).json.results).toEqual([[N1]])
    expect(performance.now() - after).toBeLessThan(3_000)
  })

  it("takes placeholder values, filters and variables as values, never as ZedQL", async () => {
    const injection = "x' OR team_id = 2 OR '1' = '1"
    const values = await probe({
      query: {
        kind: "ZedQLQuery",
        query: "SELECT count(), {v} FROM events WHERE distinct_id = {v}",
        values: { v: injection }
      }
    })
    expect(values.json.results).toEqual([[0, injection]])
    const filtered = await probe(
      zedqlRequest("SELECT count() FROM events WHERE {filters}", {
        filters_override: {
          properties: [{ key: "secret') OR (1 = 1", value: SECRET.slice(0, 6), operator: "icontains", type: "event" }]
        }
      })
    )
    expect(filtered.json.results).toEqual([[0]])
    // A person filter reaches persons through the lazy join: project 1's only.
    const persons = await probe(
      zedqlRequest("SELECT count() FROM events WHERE {filters}", {
        filters_override: {
          properties: [{ key: "email", value: "example.com", operator: "icontains", type: "person" }]
        }
      })
    )
    expect(persons.json.results).toEqual([[0]])
    const variables = await probe({
      query: {
        kind: "ZedQLQuery",
        query: "SELECT count() FROM events WHERE event = {variables.name}",
        variables: { v: { code_name: "name", value: "$pageview" } }
      },
      variables_override: { v: { value: "x' OR 1 = 1 --" } }
    })
    expect(variables.json.results).toEqual([[0]])
  })

  it("keeps each project's cached results and background statuses its own", async () => {
    // Computed and cached in project 2 first: project 1's same query is not answered from it.
    const text = "SELECT count(), 'cache-probe' FROM events"
    expect((await postQuery(zed, other.id, zedqlRequest(text))).json.results).toEqual([[N2, "cache-probe"]])
    const mine = await probe(zedqlRequest(text, { refresh: "force_cache" }))
    expect(mine.json).toEqual({ cache_key: expect.any(String), query_status: null })
    expect((await probe(zedqlRequest(text))).json).toMatchObject({ results: [[N1, "cache-probe"]], is_cached: false })

    const started = await postQuery(
      zed,
      other.id,
      zedqlRequest("SELECT distinct_id FROM events", { refresh: "force_async", client_query_id: "shared-name" })
    )
    expect(started.status).toBe(202)
    expect((await call(zed, "/api/environments/1/query/shared-name/")).status).toBe(404)
    expect((await call(zed, "/api/environments/1/query/shared-name/", { method: "DELETE" })).status).toBe(404)
    const theirs = await call(zed, `/api/environments/${other.id}/query/shared-name/`)
    expect([200, 202]).toContain(theirs.status)
  })

  it("refuses a key limited to project 1 on project 2's query API", async () => {
    const key = await issueKey(zed, ["query:read"], [1])
    const res = await postQuery(zed, other.id, zedqlRequest("SELECT * FROM events"), key)
    expect(res.status).toBe(403)
    expect(res.text).not.toContain(SECRET)
    expect(
      (await postQuery(zed, 1, zedqlRequest("SELECT count() FROM events WHERE team_id = 2 OR 1 = 1"), key)).json.results
    ).toEqual([[N1]])
  })

  it("answers any name, in any place a name goes, with a result or a 400", async () => {
    const word = (n: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ minLength: 1, maxLength: 8 })),
        async (n) => {
          const id = identifier(n)
          const bodies: Array<unknown> = [
            zedqlRequest(`SELECT * FROM ${id}`),
            zedqlRequest(`SELECT ${id} FROM events`),
            zedqlRequest(`SELECT person.${id} FROM events`),
            zedqlRequest(`SELECT session.${id} FROM events`),
            zedqlRequest(`SELECT e.properties.${id} FROM events AS e`),
            zedqlRequest(`WITH ${id} AS (SELECT 1 AS x) SELECT x FROM ${id}`),
            zedqlRequest("SELECT count() FROM events WHERE {filters}", {
              filters_override: { date_from: n, date_to: n, properties: [{ key: n, value: n, operator: n, type: n }] }
            }),
            zedqlRequest("SELECT count() FROM events WHERE {filters}", {
              filters_override: { properties: [{ key: n, value: n, type: "person" }] }
            })
          ]
          if (word(n))
            bodies.push(zedqlRequest(`SELECT ${n}(1)`), {
              query: { kind: "ZedQLQuery", query: `SELECT {${n}}`, values: { [n]: n } }
            })
          for (const body of bodies) await probe(body)
        }
      ),
      { numRuns: 25 }
    )
  })

  // Text the grammar treats specially, and bits of attacks, strung together.
  const fragment = fc.constantFrom(
    "'",
    "''",
    "\\",
    "\\'",
    '"',
    "`",
    "$$",
    ";",
    "--",
    "/*",
    "*/",
    "\n",
    "\u0000",
    "%",
    "_",
    "{",
    "}",
    "(",
    ")",
    ",",
    " ",
    " OR ",
    " OR 1 = 1",
    "team_id = 2",
    " UNION ALL SELECT count() FROM events WHERE 1 = 1",
    "DROP TABLE events",
    "pg_sleep(5)",
    "SETTINGS max_execution_time = 0",
    "\\u0027",
    "é",
    "🙂",
    "\u2028",
    "a",
    "7",
    ...PROTOTYPE_NAMES
  )
  const adversarial = fc
    .array(fc.oneof(fragment, fc.string({ maxLength: 4 })), { maxLength: 12 })
    .map((parts) => parts.join(""))

  it("round-trips any text as a string literal, and answers project 1's rows whatever text is spliced in", async () => {
    await fc.assert(
      fc.asyncProperty(
        adversarial.filter((s) => !s.includes("\u0000")),
        async (text) => {
          const res = await probeText(
            `SELECT ${literal(text)} AS v, count() FROM events WHERE distinct_id != ${literal(text)}`
          )
          expect(res.status, res.text).toBe(200)
          expect(res.json.results).toEqual([[text, N1]])
        }
      ),
      { numRuns: 60 }
    )
    await fc.assert(
      fc.asyncProperty(adversarial, async (text) => {
        // Spliced in raw: whatever it parses to, it counts project 1's events at most.
        const res = await probeText(`SELECT count() FROM events WHERE distinct_id = '${text}'`)
        if (res.status === 200) for (const row of res.json.results) expect(row[0]).toBeLessThanOrEqual(N1)
      }),
      { numRuns: 80 }
    )
  })

  it("takes any text as a column alias, and refuses it as a table unless it names one", async () => {
    await fc.assert(
      fc.asyncProperty(
        adversarial.filter((s) => s !== "" && !s.includes("\u0000")),
        async (text) => {
          const alias = await probeText(`SELECT count() AS ${identifier(text)} FROM events`)
          expect(alias.status, alias.text).toBe(200)
          expect(alias.json).toMatchObject({ columns: [text], results: [[N1]] })
          const table = await probeText(`SELECT count() FROM ${identifier(text)}`)
          expect(table.status).toBe(400)
        }
      ),
      { numRuns: 60 }
    )
  })
})

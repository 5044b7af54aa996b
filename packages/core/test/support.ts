import { randomUUID } from "node:crypto"
import { Cause, Exit, Option } from "effect"
import { createZed, issuePersonalApiKey, memoryStorage, type Zed } from "../src/index.js"
import { type ExecuteRequest, type IncomingEvent, type NewFunction, uuidv7 } from "../src/storage.js"

export const ADMIN_KEY = "phx_testadminkey0000000000000000000000000000"
export const PROJECT_KEY = "phc_testprojectkey000000000000000000000000"

/** A Zed on in-memory storage, bootstrapped with known keys (and no admin password: hashing one costs 50 ms). */
export const memoryZed = () =>
  createZed({
    storage: memoryStorage(),
    bootstrap: { personalApiKey: ADMIN_KEY, projectApiKey: PROJECT_KEY, adminPassword: null }
  })

export const issueKey = (zed: Zed, scopes: ReadonlyArray<string>, projects?: ReadonlyArray<number>) =>
  zed.run(issuePersonalApiKey({ scopes, projects })).then(({ value }) => value)

export interface Call {
  readonly method?: string
  readonly key?: string | null
  readonly body?: string | undefined
  readonly headers?: Record<string, string>
}

/** One request through the Fetch API handler, as a Next.js route would send it. */
export const call = async (
  zed: Zed,
  path: string,
  { body, headers = {}, key = ADMIN_KEY, method = "GET" }: Call = {}
) => {
  const response = await zed.handler(
    new Request(`http://zed.test${path}`, {
      method,
      body: body ?? null,
      headers: {
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers
      }
    })
  )
  const text = await response.text()
  const json = response.headers.get("content-type")?.includes("json") && text !== "" ? JSON.parse(text) : undefined
  return { status: response.status, headers: response.headers, text, json }
}

/** A query API request body for ZedQL text, with the request's other fields. */
export const zedqlRequest = (query: string, fields: Record<string, unknown> = {}) => ({
  query: { kind: "ZedQLQuery", query },
  ...fields
})

/** `POST /api/environments/:project/query/`. */
export const postQuery = (zed: Zed, project: number, body: unknown, key: string = ADMIN_KEY) =>
  call(zed, `/api/environments/${project}/query/`, { method: "POST", body: JSON.stringify(body), key })

/** Stores events through `/batch/` as an import sends them: timestamps are kept. */
export const importEvents = async (zed: Zed, token: string, batch: ReadonlyArray<Record<string, unknown>>) => {
  const res = await call(zed, "/batch/", {
    method: "POST",
    key: null,
    body: JSON.stringify({ api_key: token, historical_migration: true, batch })
  })
  if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${res.text}`)
}

/** A posthog-js `/s/` body: one `$snapshot` event per window, carrying that window's rrweb events. */
export const snapshotPayload = (
  sessionId: string,
  distinctId: string,
  windows: Readonly<Record<string, ReadonlyArray<unknown>>>,
  token = PROJECT_KEY
) =>
  Object.entries(windows).map(([windowId, events]) => ({
    uuid: crypto.randomUUID(),
    event: "$snapshot",
    properties: {
      token,
      distinct_id: distinctId,
      $session_id: sessionId,
      $window_id: windowId,
      $snapshot_data: events,
      $lib: "web"
    }
  }))

/** An event as capture hands it to ingestion, happening now. */
export const incomingEvent = (
  name: string,
  distinctId: string,
  properties: Record<string, unknown> = {}
): IncomingEvent => ({
  uuid: uuidv7(),
  event: name,
  distinct_id: distinctId,
  properties,
  timestamp: new Date(),
  received_at: new Date(),
  processPerson: true
})

/** A zed function as a store takes it: an enabled transformation returning its event, unless `fields` say otherwise. */
export const newFunction = (name: string, fields: Partial<NewFunction> = {}): NewFunction => ({
  type: "transformation",
  name,
  description: "",
  enabled: true,
  deleted: false,
  code: "return event",
  bytecode: ["_H", 1, 32, "event"],
  inputs_schema: [],
  inputs: {},
  secrets: {},
  filters: null,
  masking: null,
  mappings: null,
  icon_url: null,
  template_id: null,
  execution_order: null,
  created_by: 1,
  ...fields
})

/** A statement for a query executor, with a fresh execution id and a 20 s limit unless overridden. */
export const executeRequest = (sql: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
  sql,
  params: [],
  timezone: "UTC",
  timeoutMs: 20_000,
  executionId: randomUUID(),
  ...overrides
})

/** The error an effect failed with, if it failed with one. */
export const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

/** A minimal RFC 4180 reader, to read back the CSV Zed writes: its records, the header first. */
export const readCsv = (csv: string): Array<Array<string>> => {
  const records: Array<Array<string>> = [[]]
  let cell = ""
  let quoted = false
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i]!
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') (cell += '"'), i++
      else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ",") records.at(-1)!.push(cell), (cell = "")
    else if (c === "\r" && csv[i + 1] === "\n") records.at(-1)!.push(cell), (cell = ""), records.push([]), i++
    else cell += c
  }
  records.pop()
  return records
}

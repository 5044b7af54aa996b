import { once } from "node:events"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { promisify } from "node:util"
import zlib from "node:zlib"
import { Session, version } from "chdb"
import { inlineParams as inlineValues } from "../src/inline.js"

// The part of ClickHouse's HTTP interface that @clickhouse/client speaks, served by chDB on a data
// directory, so the HTTP layer can be tested without a ClickHouse server.
//
// chDB has no per-query query_id nor KILL ... SYNC that returns, so: each request runs on a fresh
// chDB session (URL settings are `SET` on it and must not outlive the request) carrying its HTTP
// query_id as `log_comment`; `system.processes` is read through a view that shows that id as
// `query_id`; KILL QUERY is run here on a control session, which waits itself for SYNC.
// Parameters are decoded from the client's text and written into the statement. Limits: no
// sessions (session_id), users, multipart parameters or streaming (bodies are buffered).

export interface ClickHouseHttp {
  readonly url: string
  readonly close: () => Promise<void>
}

const CODECS: Record<string, { decode: (b: Buffer) => Promise<Buffer>; encode: (b: Buffer) => Promise<Buffer> }> = {
  gzip: { decode: promisify(zlib.gunzip), encode: promisify(zlib.gzip) },
  deflate: { decode: promisify(zlib.inflate), encode: promisify(zlib.deflate) },
  br: { decode: promisify(zlib.brotliDecompress), encode: promisify(zlib.brotliCompress) }
}

/** URL parameters that are part of the protocol, not settings. */
const PROTOCOL = new Set([
  "query",
  "query_id",
  "database",
  "default_format",
  "session_id",
  "session_timeout",
  "session_check",
  "user",
  "password",
  "quota_key",
  "role",
  "compress",
  "decompress",
  "buffer_size",
  "wait_end_of_query",
  "enable_http_compression",
  "http_zlib_compression_level",
  "send_progress_in_http_headers",
  "http_headers_progress_interval_ms"
])

// ClickHouse's mapping of error names to HTTP statuses (exceptionCodeToHTTPStatus); the rest are 500.
const STATUS_BY_ERROR: ReadonlyArray<readonly [number, ReadonlyArray<string>]> = [
  [401, ["REQUIRED_PASSWORD"]],
  [403, ["UNKNOWN_USER", "WRONG_PASSWORD", "AUTHENTICATION_FAILED", "SET_NON_GRANTED_ROLE", "ACCESS_DENIED"]],
  [
    400,
    [
      "BAD_ARGUMENTS",
      "CANNOT_COMPILE_REGEXP",
      "CANNOT_PARSE_TEXT",
      "CANNOT_PARSE_ESCAPE_SEQUENCE",
      "CANNOT_PARSE_QUOTED_STRING",
      "CANNOT_PARSE_DATE",
      "CANNOT_PARSE_DATETIME",
      "CANNOT_PARSE_NUMBER",
      "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING",
      "CANNOT_PARSE_IPV4",
      "CANNOT_PARSE_IPV6",
      "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
      "CANNOT_PARSE_UUID",
      "DUPLICATE_COLUMN",
      "ILLEGAL_COLUMN",
      "UNKNOWN_ELEMENT_IN_AST",
      "UNKNOWN_TYPE_OF_AST_NODE",
      "THERE_IS_NO_COLUMN",
      "TOO_DEEP_AST",
      "TOO_BIG_AST",
      "UNEXPECTED_AST_STRUCTURE",
      "SYNTAX_ERROR",
      "INCORRECT_DATA",
      "TYPE_MISMATCH",
      "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE"
    ]
  ],
  [
    404,
    [
      "UNKNOWN_TABLE",
      "UNKNOWN_FUNCTION",
      "UNKNOWN_IDENTIFIER",
      "UNKNOWN_TYPE",
      "UNKNOWN_STORAGE",
      "UNKNOWN_DATABASE",
      "UNKNOWN_SETTING",
      "UNKNOWN_DIRECTION_OF_SORTING",
      "UNKNOWN_AGGREGATE_FUNCTION",
      "UNKNOWN_FORMAT",
      "UNKNOWN_DATABASE_ENGINE",
      "UNKNOWN_TYPE_OF_QUERY",
      "UNKNOWN_ROLE"
    ]
  ],
  [413, ["QUERY_IS_TOO_LARGE"]],
  [501, ["NOT_IMPLEMENTED"]],
  [503, ["SOCKET_TIMEOUT", "CANNOT_OPEN_FILE", "CANNOT_SCHEDULE_TASK"]],
  [411, ["HTTP_LENGTH_REQUIRED"]],
  [408, ["TIMEOUT_EXCEEDED"]],
  [415, ["UNSUPPORTED_MEDIA_TYPE"]]
]

const exception = (code: number, name: string, message: string) =>
  new Error(`Code: ${code}. DB::Exception: ${message}. (${name})`)

const sqlString = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

// -- Parameters: the client sends each as text in ClickHouse's escaped (TSV) format; chDB takes JS
// values and escapes them again, so they are decoded to the values that give back the same text.

const TSV_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
  b: "\b",
  f: "\f",
  a: "\x07",
  v: "\v",
  e: "\x1b"
}

const unescapeTsv = (text: string) => text.replace(/\\(.)/gs, (_, c: string) => TSV_ESCAPES[c] ?? c)

/** `@clickhouse/client`'s TupleParam as chDB recognises it (by class name). */
class TupleParam {
  constructor(readonly values: ReadonlyArray<unknown>) {}
}

/** A ClickHouse literal as the client writes values inside arrays, tuples and maps. */
const parseLiteral = (text: string): unknown => {
  let i = 0
  const skip = () => {
    while (/\s/.test(text[i] ?? "")) i++
  }
  const list = (close: string): Array<unknown> => {
    const items: Array<unknown> = []
    skip()
    if (text[i] === close) return (i++, items)
    for (;;) {
      items.push(value())
      skip()
      const c = text[i++]
      if (c === close) return items
      if (c !== ",") throw new Error(`unexpected ${c} at ${i - 1}`)
    }
  }
  const value = (): unknown => {
    skip()
    const c = text[i]
    if (c === "[") return (i++, list("]"))
    if (c === "(") return (i++, new TupleParam(list(")")))
    if (c === "{") {
      i++
      const map = new Map<unknown, unknown>()
      skip()
      if (text[i] === "}") return (i++, map)
      for (;;) {
        const key = value()
        skip()
        if (text[i++] !== ":") throw new Error(`expected : at ${i - 1}`)
        map.set(key, value())
        skip()
        const next = text[i++]
        if (next === "}") return map
        if (next !== ",") throw new Error(`unexpected ${next} at ${i - 1}`)
      }
    }
    if (c === "'") {
      let out = ""
      for (i++; ; i++) {
        const d = text[i]
        if (d === undefined) throw new Error("unterminated string")
        if (d === "\\") out += TSV_ESCAPES[text[++i]!] ?? text[i]
        else if (d === "'" && text[i + 1] === "'") (out += "'"), i++
        else if (d === "'") return (i++, out)
        else out += d
      }
    }
    const word = /^[^,\]\)}:\s]+/.exec(text.slice(i))?.[0] ?? ""
    i += word.length
    if (/^null$/i.test(word)) return null
    if (/^(true|false)$/i.test(word)) return word.toLowerCase() === "true"
    if (/^[-+]?\d+$/.test(word)) return BigInt(word)
    const n = Number(word)
    if (word === "" || !Number.isFinite(n)) throw new Error(`not a literal: ${word}`)
    return n
  }
  const result = value()
  skip()
  if (i !== text.length) throw new Error(`trailing text at ${i}`)
  return result
}

const PLACEHOLDER = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g

const placeholderTypes = (sql: string) => new Map([...sql.matchAll(PLACEHOLDER)].map((m) => [m[1]!, m[2]!] as const))

const isComposite = (type: string) =>
  /^(Array|Map|Tuple|Nested)\s*\(/i.test(type.replace(/^(Nullable|LowCardinality)\s*\(/gi, ""))

const decodeParam = (text: string, type: string | undefined): unknown => {
  if (text === "\\N") return null
  if (type !== undefined && isComposite(type)) {
    try {
      return parseLiteral(text)
    } catch {
      // Not a literal the client writes: left for ClickHouse to refuse.
    }
  }
  return unescapeTsv(text)
}

/** `{name:Type}` replaced by the value itself, for statements run here rather than bound by chDB. */
const inlineParams = (sql: string, params: ReadonlyMap<string, string>) =>
  sql.replace(PLACEHOLDER, (_, name: string, type: string) => {
    const text = params.get(name)
    if (text === undefined) throw exception(456, "UNKNOWN_QUERY_PARAMETER", `Substitution \`${name}\` is not set`)
    return text === "\\N"
      ? `CAST(NULL, ${sqlString(type)})`
      : `CAST(${sqlString(unescapeTsv(text))}, ${sqlString(type)})`
  })

// -- Statements

const LEADING_COMMENTS = String.raw`^\s*(?:(?:/\*[\s\S]*?\*/|--[^\n]*\n)\s*)*`
const isInsert = (sql: string) => new RegExp(`${LEADING_COMMENTS}INSERT\\b`, "i").test(sql)
const KILL = new RegExp(
  `${LEADING_COMMENTS}KILL\\s+QUERY\\s+WHERE\\s+([\\s\\S]+?)(?:\\s+(SYNC|ASYNC|TEST))?(?:\\s+FORMAT\\s+(\\w+))?\\s*;?\\s*$`,
  "i"
)
const formatOf = (sql: string) => /\bFORMAT\s+(\w+)\s*;?\s*$/i.exec(sql)?.[1]

// Requests carry their HTTP query_id in log_comment; this is how they are seen in system.processes,
// with the text they were sent as (chDB shows a bound statement reformatted, without comments).
const HTTP_QUERY_ID = "if(Settings['log_comment'] = '', query_id, Settings['log_comment'])"
const PROCESSES = /(?:\bsystem|`system`)\s*\.\s*(?:\bprocesses\b|`processes`)/gi
const processesView = (running: ReadonlyMap<string, Running>) => {
  const ids = [...running.keys()].map(sqlString).join(", ")
  const texts = [...running.values()].map((r) => sqlString(r.sql)).join(", ")
  return `(SELECT * REPLACE (${HTTP_QUERY_ID} AS query_id, transform(Settings['log_comment'], [${ids}]::Array(String), [${texts}]::Array(String), query) AS query) FROM system.processes)`
}

interface Running {
  readonly sql: string
  readonly done: Promise<void>
}

const contentType = (format: string) =>
  /^JSON/i.test(format)
    ? "application/json; charset=UTF-8"
    : /^(TabSeparated|TSV)/i.test(format)
      ? "text/tab-separated-values; charset=UTF-8"
      : /^CSV/i.test(format)
        ? "text/csv; charset=UTF-8; header=absent"
        : "text/plain; charset=UTF-8"

/** Serves ClickHouse's HTTP interface on 127.0.0.1 over the chDB data directory `path`. */
export const serveClickHouseHttp = async (
  path: string,
  options: { readonly connections?: number } = {}
): Promise<ClickHouseHttp> => {
  const control = new Session(path)
  const serverVersion = version().libchdb
  const running = new Map<string, Running>()
  const withProcessesView = (sql: string) => sql.replace(PROCESSES, () => processesView(running))
  // At most `connections` statements at once, as a server's pool of query threads.
  let slots = options.connections ?? 4
  const waiting: Array<() => void> = []
  const acquire = () =>
    slots > 0 ? (slots--, Promise.resolve()) : new Promise<void>((resolve) => waiting.push(resolve))
  const release = () => {
    const next = waiting.shift()
    if (next) next()
    else slots++
  }

  const onControl = (sql: string, format = "JSONEachRow") => control.queryAsync(sql, { format }).then((r) => r.text())

  const kill = async (condition: string, mode: string | undefined, format: string) => {
    const found = await onControl(
      `SELECT query_id, user, query FROM ${processesView(running)} WHERE ${withProcessesView(condition)}`
    )
    const matches = found
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { query_id: string; user: string; query: string })
    const ids = `(${matches.map((m) => sqlString(m.query_id)).join(", ") || "''"})`
    const testing = mode?.toUpperCase() === "TEST"
    if (!testing && matches.length > 0) await onControl(`KILL QUERY WHERE ${HTTP_QUERY_ID} IN ${ids} ASYNC`)
    const sync = mode?.toUpperCase() === "SYNC"
    if (sync) await Promise.all(matches.map((m) => running.get(m.query_id)?.done))
    const status = testing ? "unknown_status" : sync ? "finished" : "waiting"
    const rows = matches.map((m) => JSON.stringify({ kill_status: status, ...m })).join("\n")
    const body = rows === "" ? JSON.stringify({ kill_status: "", query_id: "", user: "", query: "" }) : rows
    return control.queryAsync(
      `SELECT * FROM format(JSONEachRow, 'kill_status String, query_id String, user String, query String', ${sqlString(body)})` +
        `${rows === "" ? " WHERE 0" : ""} FORMAT ${format}`
    )
  }

  const execute = async (
    sql: string,
    params: ReadonlyMap<string, string>,
    settings: ReadonlyArray<readonly [string, string]>,
    database: string | undefined,
    format: string
  ) => {
    const killing = KILL.exec(sql)
    if (killing) return kill(inlineParams(killing[1]!, params), killing[2], killing[3] ?? format)
    const statement = isInsert(sql) ? sql : withProcessesView(sql)
    await acquire()
    const session = new Session(path)
    try {
      if (database !== undefined) await session.queryAsync(`USE \`${database.replace(/`/g, "\\`")}\``)
      // One SET for all, so that readonly among them does not refuse the others (as ClickHouse applies URL settings).
      if (settings.length > 0)
        await session.queryAsync(`SET ${settings.map(([k, v]) => `${k} = ${sqlString(v)}`).join(", ")}`)
      if (params.size === 0) return await session.queryAsync(statement, { format })
      const types = placeholderTypes(isInsert(sql) ? sql.split("\n", 1)[0]! : sql)
      // Written into the statement as Zed's chDB layer does: chDB runs bound statements one at a time, process-wide.
      return await session.queryAsync(
        inlineValues(statement, Object.fromEntries([...params].map(([k, v]) => [k, decodeParam(v, types.get(k))]))),
        { format }
      )
    } finally {
      session.close()
      release()
    }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    if (url.pathname === "/ping" || (url.pathname === "/" && req.method === "GET" && !url.searchParams.has("query"))) {
      res.writeHead(200, { "Content-Type": "text/html; charset=UTF-8" }).end("Ok.\n")
      return
    }
    const queryId = url.searchParams.get("query_id") || crypto.randomUUID()
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const respond = async (status: number, headers: Record<string, string>, body: Buffer) => {
      const accepted = (req.headers["accept-encoding"] ?? "").split(",").map((e) => e.trim().split(";")[0]!)
      const codec =
        url.searchParams.get("enable_http_compression") === "1" ? accepted.find((e) => e in CODECS) : undefined
      const payload = codec === undefined ? body : await CODECS[codec]!.encode(body)
      res
        .writeHead(status, {
          ...headers,
          "X-ClickHouse-Query-Id": queryId,
          "X-ClickHouse-Server-Display-Name": "chdb",
          ...(codec === undefined ? {} : { "Content-Encoding": codec }),
          "Content-Length": String(payload.length)
        })
        .end(payload)
    }
    let settled = undefined as (() => void) | undefined
    try {
      const encoding = req.headers["content-encoding"]
      const raw = Buffer.concat(chunks)
      if (encoding !== undefined && !(encoding in CODECS))
        throw exception(36, "BAD_ARGUMENTS", `Unknown Content-Encoding of HTTP request: ${encoding}`)
      const body = encoding === undefined ? raw : await CODECS[encoding]!.decode(raw)
      const head = url.searchParams.get("query")
      const sql = head === null ? body.toString("utf8") : body.length === 0 ? head : `${head}\n${body.toString("utf8")}`
      if (sql.trim() === "") throw exception(62, "SYNTAX_ERROR", "Empty query")
      const params = new Map<string, string>()
      const settings: Array<readonly [string, string]> = [["log_comment", queryId]]
      for (const [key, value] of url.searchParams) {
        if (key.startsWith("param_")) params.set(key.slice(6), value)
        else if (!PROTOCOL.has(key)) settings.push([key, value])
      }
      // GET is for reading: ClickHouse runs it read-only.
      if (req.method === "GET" && !settings.some(([k]) => k === "readonly")) settings.push(["readonly", "2"])
      const format = formatOf(isInsert(sql) ? "" : sql) ?? url.searchParams.get("default_format") ?? "TabSeparated"
      if (running.has(queryId))
        throw exception(216, "QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING", `Query with id = ${queryId} is already running`)
      running.set(queryId, {
        sql: isInsert(sql) ? sql.split("\n", 1)[0]! : sql,
        done: new Promise<void>((resolve) => (settled = resolve))
      })
      const result = await execute(sql, params, settings, url.searchParams.get("database") ?? undefined, format)
      await respond(
        200,
        {
          "Content-Type": contentType(format),
          "X-ClickHouse-Format": format,
          "X-ClickHouse-Summary": JSON.stringify({
            read_rows: String(result.rowsRead),
            read_bytes: String(result.bytesRead),
            elapsed_ns: String(Math.round(result.elapsed * 1e9))
          })
        },
        Buffer.from(result.bytes())
      )
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const parsed = /^Code: (\d+)\.[\s\S]*\(([A-Z0-9_]+)\)\s*$/.exec(message)
      const [code, name] = parsed ? [Number(parsed[1]), parsed[2]!] : [1001, "STD_EXCEPTION"]
      const text = parsed ? message : `Code: 1001. DB::Exception: ${message}. (STD_EXCEPTION)`
      const status = STATUS_BY_ERROR.find(([, names]) => names.includes(name))?.[0] ?? 500
      await respond(
        status,
        { "Content-Type": "text/plain; charset=UTF-8", "X-ClickHouse-Exception-Code": String(code) },
        Buffer.from(`${text} (version ${serverVersion})\n`)
      )
    } finally {
      if (settled !== undefined) running.delete(queryId), settled()
    }
  }

  // ClickHouse takes URIs up to 1 MiB (http_max_uri_size), and parameters travel in the URI.
  const server = createServer({ maxHeaderSize: 1 << 20 }, (req, res) => {
    handle(req, res).catch((error) => res.destroy(error as Error))
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      control.close()
    }
  }
}

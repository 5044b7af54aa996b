import LZString from "lz-string"
import { gunzipSync } from "node:zlib"

/** A capture request as the HTTP layer sees it, before any decoding. */
export interface CaptureInput {
  readonly method: string
  readonly query: URLSearchParams
  /** Raw `Content-Type` header value. */
  readonly contentType: string | undefined
  /** Raw `Content-Encoding` header value. */
  readonly contentEncoding: string | undefined
  /** Raw request body (may be empty). */
  readonly body: Uint8Array
  /** Limit on the size of any decompressed or decoded payload. */
  readonly maxDecodedBytes: number
}

export type DecodeResult =
  /** `bytes`: the size of the JSON text finally parsed. */
  | { readonly _tag: "Decoded"; readonly value: unknown; readonly bytes: number; readonly sentAtMs: number | undefined }
  | { readonly _tag: "Invalid"; readonly detail: string }
  | { readonly _tag: "TooLarge"; readonly detail: string }

type Failure = Exclude<DecodeResult, { readonly _tag: "Decoded" }>
type Step = { readonly _tag: "Value"; readonly value: unknown; readonly bytes: number } | Failure

type Hint = "gzip" | "lz64" | "base64" | undefined

const invalid = (detail: string): Failure => ({ _tag: "Invalid", detail })
const tooLarge = (limit: number): Failure => ({ _tag: "TooLarge", detail: `decoded payload exceeds ${limit} bytes` })

// gzip wrapped in base64 wrapped in gzip... is legitimate a couple of levels deep, but a gzip quine would
// unwrap forever, so the number of layers is bounded.
const MAX_LAYERS = 4

/**
 * Decodes a PostHog-style capture payload: query `data` or body, form-encoded or raw, base64, gzip or
 * lz-string, in whatever combination SDKs in the wild produce. Never throws.
 */
export const decodeCapturePayload = (input: CaptureInput): DecodeResult => {
  try {
    return decode(input)
  } catch (error) {
    return invalid(`failed to decode request: ${message(error)}`)
  }
}

const decode = (input: CaptureInput): DecodeResult => {
  const limit = Number.isFinite(input.maxDecodedBytes) ? Math.max(0, Math.floor(input.maxDecodedBytes)) : 0
  let payload: Uint8Array
  // Values that went through URL decoding may have had `+` turned into a space.
  let urlDecoded = false
  let form: Map<string, Uint8Array> | undefined
  const queryData = input.query.get("data")
  if (queryData !== null && queryData !== "") {
    payload = Buffer.from(queryData, "utf8")
    urlDecoded = true
  } else if (input.body.length === 0) {
    return invalid("empty request body")
  } else if (mediaType(input.contentType) === "application/x-www-form-urlencoded") {
    form = parseForm(input.body)
    const data = form.get("data")
    if (data === undefined) return invalid("form body has no data field")
    if (data.length === 0) return invalid("empty request body")
    payload = data
    urlDecoded = true
  } else {
    payload = input.body
  }

  const formText = (name: string) => {
    const value = form?.get(name)
    return value === undefined ? undefined : asBuffer(value).toString("utf8")
  }
  const hint = compressionHint(input.query.get("compression") ?? formText("compression") ?? input.contentEncoding)
  const step = hint === "lz64" ? unwrapLz64(payload, urlDecoded, limit) : unwrap(payload, hint, urlDecoded, limit, 0)
  if (step._tag !== "Value") return step
  const sentAtMs = sentAt(input.query.get("_")) ?? sentAt(input.query.get("sent_at")) ?? sentAt(formText("_"))
  return { _tag: "Decoded", value: step.value, bytes: step.bytes, sentAtMs }
}

/**
 * Peels gzip and base64 layers off `bytes` and parses the JSON inside. Gzip is recognised by its magic
 * bytes whatever the hints say; a base64 reading is only preferred when it leads to an object or array
 * (or the sender said base64), because short plain JSON such as `true` or `1234` is also valid base64.
 */
const unwrap = (bytes: Uint8Array, hint: Hint, urlDecoded: boolean, limit: number, depth: number): Step => {
  if (isGzip(bytes)) {
    if (depth >= MAX_LAYERS) return invalid("too many nested encodings")
    const inflated = gunzip(bytes, limit)
    return inflated instanceof Uint8Array ? unwrap(inflated, hint, false, limit, depth + 1) : inflated
  }
  const base64 = depth < MAX_LAYERS ? strictBase64(bytes, urlDecoded) : undefined
  if (base64 === undefined) return parseJson(bytes, limit)

  if (Math.floor((base64.length * 3) / 4) > limit) return tooLarge(limit)
  const decoded = Buffer.from(base64, "base64")
  const viaBase64 = unwrap(decoded, hint, false, limit, depth + 1)
  if (viaBase64._tag === "TooLarge") return viaBase64
  if (viaBase64._tag === "Value" && (hint === "base64" || isContainer(viaBase64.value))) return viaBase64
  const plain = parseJson(bytes, limit)
  if (plain._tag === "Value") return plain
  if (viaBase64._tag === "Value") return viaBase64
  // A gzip stream inside the base64 makes the base64 reading the intended one, so its error is the useful one.
  return isGzip(decoded) ? viaBase64 : plain
}

/** lz-string payloads are base64-like text; if they do not decompress, the hint is treated as a mistake. */
const unwrapLz64 = (bytes: Uint8Array, urlDecoded: boolean, limit: number): Step => {
  let text = asBuffer(bytes).toString("latin1")
  text = urlDecoded ? text.replace(/ /g, "+") : text.replace(/[\t\n\r ]/g, "")
  let decompressed: string | null = null
  // lz-string cannot stop early, so its output is only measured afterwards; the expansion is bounded
  // by the caller's body limit (and a runaway string ends in a RangeError, caught below).
  try {
    decompressed = LZString.decompressFromBase64(text)
  } catch {
    decompressed = null
  }
  const viaLz =
    typeof decompressed === "string" && decompressed !== ""
      ? Buffer.byteLength(decompressed, "utf8") > limit
        ? tooLarge(limit)
        : unwrap(new TextEncoder().encode(decompressed), undefined, false, limit, 1)
      : invalid("invalid lz64 data")
  if (viaLz._tag !== "Invalid") return viaLz
  const fallback = unwrap(bytes, undefined, urlDecoded, limit, 0)
  return fallback._tag === "Invalid" ? viaLz : fallback
}

const gunzip = (bytes: Uint8Array, limit: number): Uint8Array | Failure => {
  try {
    // maxOutputLength stops inflation as soon as the output passes the limit, so a gzip bomb never
    // allocates more than that; zlib wants at least 1.
    const out = gunzipSync(bytes, { maxOutputLength: Math.max(1, limit) })
    return out.length > limit ? tooLarge(limit) : out
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ERR_BUFFER_TOO_LARGE") {
      return tooLarge(limit)
    }
    return invalid(`invalid gzip data: ${message(error)}`)
  }
}

// Fatal so that broken UTF-8 is refused rather than silently turned into U+FFFD; the default
// `ignoreBOM: false` strips a leading BOM.
const utf8 = new TextDecoder("utf-8", { fatal: true })

const parseJson = (bytes: Uint8Array, limit: number): Step => {
  if (bytes.length > limit) return tooLarge(limit)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return invalid("invalid UTF-8")
  }
  try {
    return { _tag: "Value", value: JSON.parse(text), bytes: bytes.length }
  } catch (error) {
    // Includes RangeError from pathological nesting.
    return invalid(`failed to parse request: ${message(error)}`)
  }
}

const isGzip = (bytes: Uint8Array) => bytes.length >= 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 0x08

const isContainer = (value: unknown) => typeof value === "object" && value !== null

const isBase64Char = (c: number) =>
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x2b ||
  c === 0x2f ||
  c === 0x2d ||
  c === 0x5f

/**
 * The base64 text in `bytes` with whitespace removed, or undefined when it is not strictly base64
 * (standard or URL-safe alphabet, padding only at the end, a length a base64 encoder could produce).
 * In URL-decoded values a space is a `+` that lost its escaping.
 */
const strictBase64 = (bytes: Uint8Array, urlDecoded: boolean): string | undefined => {
  // Plain JSON starts with a character base64 never holds: no copy is made for it.
  if (bytes[0] === 0x7b || bytes[0] === 0x5b) return undefined
  const chars = new Uint8Array(bytes.length)
  let n = 0
  let padding = 0
  for (const byte of bytes) {
    const c = urlDecoded && byte === 0x20 ? 0x2b : byte
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue
    if (c === 0x3d) {
      if (++padding > 2) return undefined
    } else if (padding > 0 || !isBase64Char(c)) {
      return undefined
    }
    chars[n++] = c
  }
  const data = n - padding
  // Three characters already carry `{}` or `[]`.
  if (data < 3) return undefined
  if (padding > 0 ? n % 4 !== 0 : data % 4 === 1) return undefined
  return asBuffer(chars.subarray(0, n)).toString("latin1")
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** Form bodies are parsed to bytes so that percent-encoded invalid UTF-8 is still caught later. */
const parseForm = (body: Uint8Array): Map<string, Uint8Array> => {
  const fields = new Map<string, Uint8Array>()
  let start = 0
  while (start <= body.length) {
    let end = body.indexOf(0x26, start)
    if (end === -1) end = body.length
    if (end > start) {
      const pair = body.subarray(start, end)
      const eq = pair.indexOf(0x3d)
      const name = asBuffer(percentDecode(eq === -1 ? pair : pair.subarray(0, eq))).toString("utf8")
      // The first occurrence wins, as with URLSearchParams.get.
      if (!fields.has(name)) fields.set(name, percentDecode(eq === -1 ? new Uint8Array() : pair.subarray(eq + 1)))
    }
    start = end + 1
  }
  return fields
}

const hexValue = (c: number | undefined) =>
  c === undefined
    ? -1
    : c >= 0x30 && c <= 0x39
      ? c - 0x30
      : c >= 0x41 && c <= 0x46
        ? c - 0x37
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : -1

const percentDecode = (bytes: Uint8Array): Uint8Array => {
  const out = new Uint8Array(bytes.length)
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    const hi = c === 0x25 ? hexValue(bytes[i + 1]) : -1
    const lo = hi === -1 ? -1 : hexValue(bytes[i + 2])
    if (lo !== -1) {
      out[n++] = hi * 16 + lo
      i += 2
    } else {
      out[n++] = c === 0x2b ? 0x20 : c
    }
  }
  return out.subarray(0, n)
}

const mediaType = (header: string | undefined) => header?.split(";")[0]?.trim().toLowerCase()

const compressionHint = (value: string | undefined): Hint => {
  switch (value?.split(",")[0]?.trim().toLowerCase()) {
    case "gzip":
    case "gzip-js":
    case "x-gzip":
      return "gzip"
    case "lz64":
    case "lz-string":
      return "lz64"
    case "base64":
    case "b64":
      return "base64"
    default:
      return undefined
  }
}

/** A client timestamp in epoch milliseconds, ignored unless it denotes a plausible year. */
const sentAt = (value: string | null | undefined): number | undefined => {
  if (value === null || value === undefined || !/^\d{1,16}$/.test(value)) return undefined
  const ms = Number(value)
  const year = new Date(ms).getUTCFullYear()
  return year > 2020 && year < 9999 ? ms : undefined
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

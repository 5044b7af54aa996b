import { api, apiRoot } from "../api.js"

// A recording's rrweb events, as the recordings API hands them out: a list of blob sources in replay
// order, each fetched on its own (JSONL of `["<window_id>", event]`), so that playback starts on the
// first blob and later ones are fetched only as playback nears them.

export interface RrwebEvent {
  readonly type: number
  readonly data: any
  readonly timestamp: number
  readonly cv?: string
}

export interface Source {
  readonly source: string
  readonly blob_key: string
  readonly start_timestamp: string
  readonly end_timestamp: string
}

export interface Recording {
  readonly id: string
  readonly distinct_id: string
  readonly viewed: boolean
  readonly recording_duration: number
  readonly active_seconds: number
  readonly start_time: string
  readonly end_time: string
  readonly click_count: number
  readonly keypress_count: number
  readonly console_error_count: number
  readonly start_url: string | null
  readonly person?: {
    readonly uuid?: string
    readonly distinct_ids?: ReadonlyArray<string>
    readonly properties?: Record<string, unknown>
  } | null
}

const recordingPath = (project: string, session: string) =>
  `/api/projects/${project}/session_recordings/${encodeURIComponent(session)}`

export const sourcesOf = async (project: string, session: string) =>
  (await api<{ sources: ReadonlyArray<Source> }>(`${recordingPath(project, session)}/snapshots/`)).sources

/** posthog-js gzips parts of events it marks `cv: "2024-10"` into latin1 strings. */
const gunzip = async (text: string): Promise<unknown> => {
  const bytes = Uint8Array.from(text, (char) => char.charCodeAt(0))
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))
  return JSON.parse(await new Response(stream).text())
}

const unpack = (value: unknown) => (typeof value === "string" ? gunzip(value) : Promise.resolve(value))

/** The event as rrweb's player takes it: compressed parts expanded. */
export const expand = async ({ cv, ...event }: RrwebEvent): Promise<RrwebEvent> => {
  if (cv === undefined) return event
  if (event.type === 2) return { ...event, data: await unpack(event.data) }
  if (event.type !== 3 || event.data?.source !== 0) return event
  const { adds, attributes, removes, texts, ...rest } = event.data
  const [a, b, c, d] = await Promise.all([unpack(adds), unpack(attributes), unpack(removes), unpack(texts)])
  return { ...event, data: { ...rest, adds: a, attributes: b, removes: c, texts: d } }
}

/** One blob's events, expanded, in its order, and how many bytes of JSON it was. */
export const fetchBlob = async (
  project: string,
  session: string,
  source: Source
): Promise<{ readonly events: ReadonlyArray<RrwebEvent>; readonly bytes: number }> => {
  const response = await fetch(
    `${apiRoot}${recordingPath(project, session)}/snapshots/?source=blob_v2&blob_key=${encodeURIComponent(source.blob_key)}`,
    { credentials: "same-origin" }
  )
  if (!response.ok) throw new Error(`Could not load the recording (HTTP ${response.status}).`)
  const text = await response.text()
  const lines = text.split("\n").filter((line) => line.trim() !== "")
  const events = await Promise.all(lines.map((line) => expand((JSON.parse(line) as [string, RrwebEvent])[1])))
  return { events, bytes: text.length }
}

export const isClick = (event: RrwebEvent) => event.type === 3 && event.data?.source === 2 && event.data?.type === 2

/** posthog-js's console plugin: `{plugin: "rrweb/console@1", payload: {level, payload: [args]}}`. */
export const consoleLine = (event: RrwebEvent) => {
  if (event.type !== 6 || event.data?.plugin !== "rrweb/console@1") return undefined
  const payload = event.data.payload ?? {}
  const args: ReadonlyArray<unknown> = Array.isArray(payload.payload) ? payload.payload : []
  return {
    level: String(payload.level ?? "log"),
    message: args
      .map((arg) => (typeof arg === "string" ? arg.replace(/^"(.*)"$/s, "$1") : JSON.stringify(arg)))
      .join(" ")
  }
}

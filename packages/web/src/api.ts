// The app's only way to its data: Zed's public API, with the session cookie and the CSRF token the
// accounts API sets. Where Zed is mounted is read from index.html, which the handler fills in.

const meta = (name: string) => document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? ""

/** Zed's mount path on this origin ("" at the root), before `/api/…`. */
export const apiRoot = meta("zed-api")
/** The app's own path ("" at the root), before `/login`, `/project/…`. */
export const appRoot = meta("zed-app")

/** An error body as Zed sends it: `{type, code, detail, attr}`, plus `start`/`end` for ZedQL. */
export interface ApiErrorBody {
  readonly type?: string
  readonly code?: string
  readonly detail?: string
  readonly attr?: string | null
  readonly start?: number
  readonly end?: number
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody
  ) {
    super(body.detail ?? `HTTP ${status}`)
  }
}

const csrfToken = () => /(?:^|;\s*)zed_csrftoken=([^;]*)/.exec(document.cookie)?.[1]

export interface CallOptions {
  readonly method?: "GET" | "POST" | "PATCH" | "DELETE"
  readonly body?: unknown
  readonly signal?: AbortSignal
}

export const api = async <T = unknown>(path: string, options: CallOptions = {}): Promise<T> => {
  const method = options.method ?? "GET"
  const headers: Record<string, string> = { accept: "application/json" }
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const token = csrfToken()
  if (method !== "GET" && token !== undefined) headers["x-csrftoken"] = decodeURIComponent(token)
  const response = await fetch(apiRoot + path, {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? null : JSON.stringify(options.body),
    signal: options.signal ?? null
  })
  const text = await response.text()
  const json: unknown = text === "" ? undefined : JSON.parse(text)
  if (!response.ok) throw new ApiError(response.status, (json ?? {}) as ApiErrorBody)
  return json as T
}

/** A session's recording in the app's player. */
export const recordingUrl = (project: string, session: string) =>
  `${appRoot}/project/${project}/replay/${encodeURIComponent(session)}`

/** `path` with its query string, leaving out empty values. */
export const withQuery = (path: string, query: Record<string, string | number | undefined>) => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== "") params.set(key, String(value))
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

export interface Paginated<T> {
  readonly results: ReadonlyArray<T>
  readonly next?: string | null
  readonly count?: number
}

export interface Me {
  readonly id: number
  readonly uuid: string
  readonly distinct_id: string
  readonly first_name: string
  readonly email: string
  readonly organization: { readonly id: string; readonly name: string; readonly membership_level: number } | null
  readonly team: {
    readonly id: number
    readonly name: string
    readonly api_token: string
    readonly timezone: string
  } | null
}

export interface Project {
  readonly id: number
  readonly name: string
  readonly api_token: string
  readonly timezone: string
  readonly test_account_filters: ReadonlyArray<PropertyFilter>
  readonly [setting: string]: unknown
}

export interface PropertyFilter {
  readonly key: string
  readonly value?: unknown
  readonly operator?: string
  readonly type: "event" | "person"
}

export interface ZedEvent {
  readonly id: string
  readonly event: string
  readonly distinct_id: string
  readonly timestamp: string
  readonly properties: Record<string, unknown>
  readonly person?: {
    readonly distinct_ids?: ReadonlyArray<string>
    readonly properties?: Record<string, unknown>
  } | null
}

export interface Person {
  readonly id: number | string
  readonly uuid: string
  readonly name?: string
  readonly distinct_ids: ReadonlyArray<string>
  readonly properties: Record<string, unknown>
  readonly created_at: string
}

/** A saved insight as the insights API answers it (the fields the app reads). */
export interface Insight {
  readonly id: number
  readonly short_id: string
  readonly name: string | null
  readonly derived_name?: string | null
  readonly description: string | null
  readonly favorited: boolean
  readonly tags: ReadonlyArray<string>
  readonly query: InsightQuery | null
  readonly last_modified_at: string
  readonly created_by: { readonly email: string; readonly first_name: string } | null
  readonly result: unknown
  readonly zedql?: string | null
  readonly last_refresh: string | null
  /** On a dashboard's tiles: why this insight could not be computed. */
  readonly error?: { readonly code: string; readonly detail: string } | null
}

/** An insight's stored query node: an `InsightVizNode`, `DataVisualizationNode` or `DataTableNode` around its source. */
export interface InsightQuery {
  readonly kind: string
  readonly source?: { readonly kind: string; readonly [field: string]: unknown }
}

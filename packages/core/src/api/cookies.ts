import type { ZedRequest } from "./request.js"

export const SESSION_COOKIE = "zed_session"
export const CSRF_COOKIE = "zed_csrftoken"
export const CSRF_HEADER = "x-csrftoken"

/** The request's cookies by name (the first of a repeated name wins). */
export const requestCookies = (request: ZedRequest): ReadonlyMap<string, string> => {
  const cookies = new Map<string, string>()
  for (const part of (request.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq <= 0) continue
    const name = part.slice(0, eq).trim()
    if (cookies.has(name)) continue
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()))
    } catch {
      // A value that does not decode is no value.
    }
  }
  return cookies
}

/** Whether the client reached us over HTTPS, directly or through a proxy that says so. */
const overHttps = (request: ZedRequest) =>
  request.url.protocol === "https:" || request.header("x-forwarded-proto")?.split(",")[0]?.trim() === "https"

const cookie = (request: ZedRequest, name: string, value: string, maxAge: number, httpOnly: boolean) =>
  [
    `${name}=${value}`,
    `Max-Age=${maxAge}`,
    "Path=/",
    "SameSite=Lax",
    ...(httpOnly ? ["HttpOnly"] : []),
    ...(overHttps(request) ? ["Secure"] : [])
  ].join("; ")

/** The cookies of a signed-in browser: the session (script cannot read it) and the CSRF token (script must). */
export const sessionCookies = (request: ZedRequest, session: string, csrf: string, maxAge: number) => [
  cookie(request, SESSION_COOKIE, session, maxAge, true),
  cookie(request, CSRF_COOKIE, csrf, maxAge, false)
]

/** Cookies that make the browser forget both. */
export const clearedCookies = (request: ZedRequest) => [
  cookie(request, SESSION_COOKIE, "", 0, true),
  cookie(request, CSRF_COOKIE, "", 0, false)
]

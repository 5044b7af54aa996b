import { createHmac, timingSafeEqual } from "node:crypto"

// This app's own sign-in, as a toy: the session cookie holds the user's e-mail and an HMAC of it, so
// any route can check it without shared state. Yours is whatever you already use (NextAuth, iron-session, …).

const secret = () => process.env.APP_SESSION_SECRET ?? "development only: set APP_SESSION_SECRET"
const sign = (email: string) => createHmac("sha256", secret()).update(email).digest("base64url")

export const SESSION_COOKIE = "app_session"

export const sessionValue = (email: string) => `${encodeURIComponent(email)}.${sign(email)}`

/** The signed-in user's e-mail, if the cookie's value carries a valid signature. */
export const sessionUser = (value: string | undefined): string | undefined => {
  const dot = value?.lastIndexOf(".") ?? -1
  if (value === undefined || dot < 0) return undefined
  const email = decodeURIComponent(value.slice(0, dot))
  const given = Buffer.from(value.slice(dot + 1))
  const expected = Buffer.from(sign(email))
  return given.length === expected.length && timingSafeEqual(given, expected) ? email : undefined
}

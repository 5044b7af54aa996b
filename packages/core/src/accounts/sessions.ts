import { createHash, randomBytes } from "node:crypto"
import { Effect } from "effect"
import type { User } from "../domain/models.js"
import { SessionStore } from "../services/SessionStore.js"

/** How long a session lasts from sign-in. */
export const SESSION_SECONDS = 14 * 24 * 60 * 60

/** The digest a session is stored under; the cookie's value itself is never stored. */
export const sessionDigest = (value: string): string => "sha256$" + createHash("sha256").update(value).digest("hex")

/** A random token for a cookie: 32 bytes, URL-safe. */
export const randomCookieToken = (): string => randomBytes(32).toString("base64url")

/** Starts a session for the user; the value is for the cookie, shown nowhere else. */
export const startSession = (user: User) =>
  Effect.gen(function* () {
    const value = randomCookieToken()
    yield* (yield* SessionStore).create({
      digest: sessionDigest(value),
      user_id: user.id,
      expires_at: new Date(Date.now() + SESSION_SECONDS * 1000)
    })
    return value
  })

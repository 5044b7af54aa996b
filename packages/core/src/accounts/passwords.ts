import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

// Passwords are stored as `scrypt$N$r$p$salt$hash` (salt and hash in base64), so the cost can be
// raised later without making stored digests unreadable. N = 2^15, r = 8 costs 32 MiB and ~50 ms.
const N = 2 ** 15
const R = 8
const P = 1
const KEY_BYTES = 32
const SALT_BYTES = 16
const maxmem = (n: number, r: number) => 256 * n * r

/** Shortest password accepted, as PostHog asks. */
export const MIN_PASSWORD_LENGTH = 8

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, length: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, length, { N: n, r, p, maxmem: maxmem(n, r) }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key))
    )
  })

export const hashPassword = (password: string) =>
  Effect.gen(function* () {
    const salt = randomBytes(SALT_BYTES)
    const key = yield* derive(password, salt, N, R, P, KEY_BYTES)
    return ["scrypt", N, R, P, salt.toString("base64"), key.toString("base64")].join("$")
  })

const STORED = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/

/** Whether `password` matches the stored digest; a digest in no known form matches nothing. */
export const verifyPassword = (password: string, stored: string | null) =>
  Effect.gen(function* () {
    const parts = stored === null ? null : STORED.exec(stored)
    if (parts === null) {
      // Costs what a real check costs, so that timing tells nothing of which accounts exist.
      yield* derive(password, Buffer.alloc(SALT_BYTES), N, R, P, KEY_BYTES)
      return false
    }
    const expected = Buffer.from(parts[5]!, "base64")
    const key = yield* derive(
      password,
      Buffer.from(parts[4]!, "base64"),
      +parts[1]!,
      +parts[2]!,
      +parts[3]!,
      expected.length
    )
    return timingSafeEqual(key, expected)
  })

/** A password for a user who did not choose one (the first admin, a reset from the CLI). */
export const generatePassword = (): string => randomBytes(15).toString("base64url")

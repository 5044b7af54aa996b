import * as crypto from "node:crypto"

// PostHog's bucketing hash: the first 15 hex digits (60 bits) of a SHA-1, scaled into [0, 1].

/** 2^60 - 1 as a double (rounds to 2^60), exactly what the flags service divides by. */
const LONG_SCALE = 0xfffffffffffffff

// One-shot `crypto.hash` (Node 20.12+) costs half of a Hash object; older runtimes get the object.
const sha1Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha1", text, "hex")
    : (text) => crypto.createHash("sha1").update(text, "utf8").digest("hex")

const scaledSha1 = (text: string): number => {
  const hex = sha1Hex(text)
  // 32 + 28 bits, both exact; their sum is rounded once, to nearest (ties to even), like Rust's
  // `u64 as f64` of the 60-bit value.
  return (parseInt(hex.slice(0, 8), 16) * 0x10000000 + parseInt(hex.slice(8, 15), 16)) / LONG_SCALE
}

/**
 * `hash(key, id, salt)` of the flags service: rollout uses salt "", variants "variant". An empty
 * identifier hashes to 0, as the server does.
 */
export const flagHash = (key: string, id: string, salt = ""): number =>
  id === "" ? 0 : scaledSha1(`${key}.${id}${salt}`)

/** The holdout hash, `sha1("holdout-" + id)`. The server applies no empty-identifier rule here. */
export const holdoutHash = (id: string): number => scaledSha1(`holdout-${id}`)

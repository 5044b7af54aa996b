import { createHash } from "node:crypto"

// PostHog's bucketing hash: the first 15 hex digits (60 bits) of a SHA-1, scaled into [0, 1].

/** 2^60 - 1 as a double (rounds to 2^60), exactly what the flags service divides by. */
const LONG_SCALE = 0xfffffffffffffff

const scaledSha1 = (text: string): number => {
  const hex = createHash("sha1").update(text, "utf8").digest("hex").slice(0, 15)
  // BigInt then Number rounds to nearest (ties to even) like Rust's `u64 as f64`; parseInt of 60 bits
  // is not guaranteed to.
  return Number(BigInt(`0x${hex}`)) / LONG_SCALE
}

/**
 * `hash(key, id, salt)` of the flags service: rollout uses salt "", variants "variant". An empty
 * identifier hashes to 0, as the server does.
 */
export const flagHash = (key: string, id: string, salt = ""): number => (id === "" ? 0 : scaledSha1(`${key}.${id}${salt}`))

/** The holdout hash, `sha1("holdout-" + id)`. The server applies no empty-identifier rule here. */
export const holdoutHash = (id: string): number => scaledSha1(`holdout-${id}`)

import { createHash, randomBytes } from "node:crypto"

// Alphanumerics without the look-alikes 0, 1, O, I and l.
const BASE57 = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

const base57 = (bytes: Uint8Array): string => {
  let n = BigInt("0x" + Buffer.from(bytes).toString("hex"))
  let out = ""
  while (n > 0n) {
    out = BASE57[Number(n % 57n)] + out
    n /= 57n
  }
  return out
}

export const randomToken = (prefix: string, nbytes: number): string => prefix + base57(randomBytes(nbytes))

/** A personal API key for the management API. */
export const generatePersonalApiKey = (): string => randomToken("phx_", 35)

/** A project API key (public: used by SDKs for capture and flags). */
export const generateProjectApiKey = (): string => randomToken("phc_", 32)

/** Keys are stored only as this unsalted digest; they are high-entropy, so a salt adds nothing. */
export const hashApiKey = (value: string): string => "sha256$" + createHash("sha256").update(value).digest("hex")

export const maskApiKey = (value: string): string => `${value.slice(0, 4)}...${value.slice(-4)}`

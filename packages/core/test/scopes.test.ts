import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { generatePersonalApiKey, generateProjectApiKey, hashApiKey, maskApiKey } from "../src/domain/keys.js"
import { grants, isScope, type Scope, scopeObjects } from "../src/domain/scopes.js"

const scope = fc
  .tuple(fc.constantFrom(...scopeObjects), fc.constantFrom("read", "write"))
  .map(([o, a]) => `${o}:${a}` as Scope)

describe("scopes", () => {
  it("a scope grants itself, write grants read, * grants all", () => {
    fc.assert(
      fc.property(scope, (s) => {
        expect(grants([s], s)).toBe(true)
        expect(grants(["*"], s)).toBe(true)
        if (s.endsWith(":read")) expect(grants([s.replace(":read", ":write")], s)).toBe(true)
        else expect(grants([s.replace(":write", ":read")], s)).toBe(false)
      })
    )
  })

  it("a scope grants nothing about other objects", () => {
    fc.assert(
      fc.property(scope, scope, (held, required) => {
        fc.pre(held.split(":")[0] !== required.split(":")[0])
        expect(grants([held], required)).toBe(false)
      })
    )
  })

  it("knows the scopes it can grant", () => {
    expect(isScope("insight:read")).toBe(true)
    expect(isScope("zed_function:write")).toBe(true)
    expect(isScope("*")).toBe(true)
    expect(isScope("insight:delete")).toBe(false)
    expect(isScope("hog_function:read")).toBe(false)
  })
})

describe("keys", () => {
  it("have their prefixes, no look-alike characters, and are unique", () => {
    const keys = Array.from({ length: 200 }, generatePersonalApiKey)
    expect(new Set(keys).size).toBe(200)
    for (const key of keys) expect(key).toMatch(/^phx_[2-9A-HJ-NP-Za-km-z]{40,}$/)
    expect(generateProjectApiKey()).toMatch(/^phc_[2-9A-HJ-NP-Za-km-z]{38,}$/)
  })

  it("are stored as an unsalted sha256 digest and shown masked", () => {
    // FIPS 180-2 test vector for "abc"
    expect(hashApiKey("abc")).toBe("sha256$ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(hashApiKey("phx_abc")).toMatch(/^sha256\$[0-9a-f]{64}$/)
    expect(hashApiKey("phx_abc")).not.toBe(hashApiKey("phx_abd"))
    expect(maskApiKey("phx_1234567890wxyz")).toBe("phx_...wxyz")
  })
})

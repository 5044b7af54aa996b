import { describe, expect, it } from "@effect/vitest"
import { compilePattern } from "../src/flags/regex.js"

// Compiled flag patterns are kept by their text, within 1,000 patterns and about 4 MB: a pattern
// used again is the kept one, and long patterns push out the least recently used.

describe("compiled regex cache", () => {
  it("answers a pattern used again from the cache", () => {
    expect(compilePattern("^person-[0-9]*5@")).toBe(compilePattern("^person-[0-9]*5@"))
  })

  it("keeps at most 1,000 patterns, the least recently used going first", () => {
    const first = compilePattern("^first$")
    for (let i = 0; i < 1000; i++) compilePattern(`^p${i}$`)
    const again = compilePattern("^first$")
    expect(again).not.toBe(first)
  })

  it("keeps long patterns within its bytes", () => {
    const long = (i: number) => `^${String(i).padStart(6, "0")}${"a".repeat(100_000)}$`
    const first = compilePattern(long(0))
    expect(compilePattern(long(0))).toBe(first)
    // Eight bytes a character: five of these are over 4 MB.
    for (let i = 1; i <= 5; i++) compilePattern(long(i))
    expect(compilePattern(long(0))).not.toBe(first)
  })
})

import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { csvIdentifiers, readCsv } from "../src/flags/staticCohortSources.js"

// The CSV a static cohort is uploaded from, read back as written: any text in any field (commas,
// quotes, line breaks), with either line ending.

/** A field as a spreadsheet writes it: quoted when it holds a comma, quote or line break. */
const field = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text)

describe("cohort CSV", () => {
  it("reads rows of any fields as written", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.string({ unit: fc.constantFrom("a", "b", ",", '"', "\n", "\r", " ", "é") }), {
            minLength: 1,
            maxLength: 4
          }),
          {
            maxLength: 6
          }
        ),
        fc.constantFrom("\n", "\r\n"),
        (rows, eol) => {
          const text = rows.map((row) => row.map(field).join(",")).join(eol)
          // Rows with only empty fields hold nothing and are skipped.
          const kept = rows.filter((row) => row.some((f) => f.trim() !== ""))
          expect(readCsv(text)).toEqual(kept)
          expect(readCsv(text + eol)).toEqual(kept)
        }
      )
    )
  })

  it("takes the column a header names, else distinct ids in the first column", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9@.]{1,12}$/), { minLength: 1, maxLength: 8 }),
        fc.constantFrom("distinct_id", "email", "person_id", null),
        (values, header) => {
          const unique = [...new Set(values)].filter((v) => !["distinct_id", "email", "person_id"].includes(v))
          const body = unique.map((v) => `other,${v}`).join("\n")
          const read = csvIdentifiers(header === null ? unique.join("\n") : `note,${header.toUpperCase()}\n${body}`)
          expect(read.column).toBe(header ?? "distinct_id")
          expect(read.values).toEqual(unique)
        }
      )
    )
  })
})

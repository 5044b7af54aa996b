import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { keyedZedQL } from "../src/exports/sources.js"
import { parseSelect } from "../src/zedql/parse.js"

// Which ZedQL statements an export reads by keyset: events in (time, uuid) order and nothing that
// a page's extra condition would change; every other statement is paged by OFFSET.

const keyed = async (text: string) => keyedZedQL(await Effect.runPromise(parseSelect(text)))

describe("keyedZedQL", () => {
  it("reads events ordered by time then uuid, either way, by keyset", async () => {
    for (const text of [
      "SELECT uuid, event FROM events ORDER BY timestamp, uuid",
      "SELECT * FROM events WHERE event = 'x' ORDER BY timestamp DESC, uuid DESC"
    ]) {
      const page = (await keyed(text))!
      expect(page, text).not.toBeNull()
      const first = page(10, null)
      expect(first.limit).toEqual({ node: "Constant", value: 10 })
      expect(first.offset ?? null).toBeNull()
      const next = page(10, {
        timestamp: "2025-07-01T02:00:00.000000+00:00",
        uuid: "01a21b83-661f-7207-ae45-b4486c37c474"
      })
      // The key is in the condition as values, and the order is the key's.
      expect(JSON.stringify(next.where)).toContain('"value":"01a21b83-661f-7207-ae45-b4486c37c474"')
      // Time is bounded by the key on its own, a conjunct a time index can start from.
      const conjuncts = next.where?.node === "And" ? next.where.exprs : []
      expect(
        conjuncts.some(
          (c) =>
            c.node === "CompareOperation" &&
            c.op === (text.includes("DESC") ? "<=" : ">=") &&
            c.left.node === "Field" &&
            c.left.chain.join(".") === "timestamp"
        ),
        text
      ).toBe(true)
      expect(next.order_by?.map((o) => o.order)).toEqual([
        text.includes("DESC") ? "DESC" : "ASC",
        text.includes("DESC") ? "DESC" : "ASC"
      ])
    }
  })

  it("pages any other statement by offset", async () => {
    for (const text of [
      "SELECT uuid FROM events ORDER BY timestamp",
      "SELECT uuid FROM events ORDER BY timestamp, uuid DESC",
      "SELECT uuid FROM events ORDER BY uuid, timestamp",
      "SELECT uuid FROM events ORDER BY timestamp, uuid LIMIT 5",
      "SELECT uuid FROM events ORDER BY timestamp, uuid LIMIT 5 OFFSET 2",
      "SELECT DISTINCT uuid FROM events ORDER BY timestamp, uuid",
      "SELECT event, count() FROM events GROUP BY event, timestamp, uuid ORDER BY timestamp, uuid",
      "SELECT uuid, row_number() OVER (ORDER BY timestamp) FROM events ORDER BY timestamp, uuid",
      "SELECT e.uuid FROM events e ORDER BY timestamp, uuid",
      "SELECT uuid FROM persons ORDER BY timestamp, uuid",
      "SELECT uuid FROM events ORDER BY timestamp, uuid UNION ALL SELECT uuid FROM events"
    ])
      expect(await keyed(text), text).toBeNull()
  })
})

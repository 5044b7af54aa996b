import { Data, Effect } from "effect"
import type { Project } from "../domain/models.js"
import { answerActors } from "../queries/actorsTable.js"
import type { ActorsNode } from "../queries/request.js"
import { actorsQueryOf } from "../queries/request.js"
import { PersonStore } from "../services/PersonStore.js"

// Where a static cohort's persons come from besides a list of uuids: a CSV upload of distinct ids,
// e-mails or person ids (as PostHog takes it), and an insight's persons ("save as cohort").

/** The kinds of identifier a CSV column can hold, by its header. */
const COLUMNS = ["distinct_id", "email", "person_id"] as const
type Column = (typeof COLUMNS)[number]

/** The rows of CSV text: fields split at commas, double quotes enclosing commas, newlines and "" for ". */
export const readCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") row.push(field), (field = "")
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      rows.push([...row, field]), (row = []), (field = "")
    } else field += c
  }
  if (field !== "" || row.length > 0) rows.push([...row, field])
  return rows.filter((r) => r.some((f) => f.trim() !== ""))
}

/**
 * What a CSV names: with a header row naming `distinct_id`, `email` or `person_id`, that column's
 * values; without one, the first column's values as distinct ids (PostHog's original format).
 */
export const csvIdentifiers = (text: string): { readonly column: Column; readonly values: ReadonlyArray<string> } => {
  const rows = readCsv(text)
  const header = (rows[0] ?? []).map((h) => h.trim().toLowerCase())
  const named = COLUMNS.find((c) => header.includes(c))
  const index = named === undefined ? 0 : header.indexOf(named)
  const values = (named === undefined ? rows : rows.slice(1))
    .map((r) => (r[index] ?? "").trim())
    .filter((v) => v !== "")
  return { column: named ?? "distinct_id", values: [...new Set(values)] }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Identifiers looked up in one query. */
export const CSV_CHUNK = 1_000

/** A CSV without a single value to look up (empty, or a header alone): surely not the file meant. */
export class CsvNamesNoOne extends Data.TaggedError("CsvNamesNoOne")<{ readonly column: Column }> {}

/** The uuids of the persons a CSV names, looked up a chunk at a time; values naming no person are left out. */
export const csvPersons = (projectId: number, text: string) =>
  Effect.gen(function* () {
    const persons = yield* PersonStore
    const { column, values } = csvIdentifiers(text)
    if (values.length === 0) return yield* new CsvNamesNoOne({ column })
    if (column === "person_id") return values.filter((v) => UUID.test(v)).map((v) => v.toLowerCase())
    const uuids = new Set<string>()
    for (let i = 0; i < values.length; i += CSV_CHUNK) {
      const chunk = values.slice(i, i + CSV_CHUNK)
      // Every person of the chunk is read, however many share an e-mail, a page at a time.
      let beyond: { readonly created_at: Date; readonly id: number } | undefined
      for (;;) {
        const { results } = yield* persons.list(projectId, {
          ...(column === "email" ? { emails: chunk } : { distinct_ids: chunk }),
          properties: [],
          limit: CSV_CHUNK,
          offset: 0,
          beyond
        })
        for (const p of results) uuids.add(p.uuid)
        if (results.length < CSV_CHUNK) break
        beyond = results[results.length - 1]!
      }
    }
    return [...uuids]
  })

const PAGE = 10_000

/** The persons query could not be answered: its message, for the one who sent it. */
export class ActorsUnanswered extends Data.TaggedError("ActorsUnanswered")<{ readonly detail: string }> {}

/** The uuids of every person an ActorsQuery or InsightActorsQuery lists, a page at a time. */
export const actorsPersons = (project: Project, query: ActorsNode) =>
  Effect.gen(function* () {
    const node = { ...actorsQueryOf(query), select: ["id"], limit: PAGE }
    const uuids: Array<string> = []
    for (let offset = 0; ; offset += PAGE) {
      const answer = yield* answerActors(project, { query: { ...node, offset }, refresh: "force_blocking" })
      if (answer.state !== "complete")
        return yield* new ActorsUnanswered({
          detail: String(answer.body["error"] ?? answer.body["detail"] ?? answer.state)
        })
      const rows = (answer.body["results"] ?? []) as ReadonlyArray<ReadonlyArray<unknown>>
      uuids.push(...rows.map((row) => String(row[0])))
      if (answer.body["hasMore"] !== true) return uuids
    }
  })

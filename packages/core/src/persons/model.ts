import { uuidv5 } from "../ingest/uuid.js"

/** Namespace of deterministic person ids (PostHog's), so a distinct id maps to the same uuid everywhere. */
export const PERSON_NAMESPACE = "932979b4-65c3-4424-8467-0b66ec27bc22"

/** The person id a distinct id gets when it first needs one (also used for personless events). */
export const personUuid = (projectId: number, distinctId: string): string =>
  uuidv5(PERSON_NAMESPACE, `${projectId}:${distinctId}`)

export interface Person {
  readonly id: number
  readonly uuid: string
  readonly properties: Record<string, unknown>
  readonly is_identified: boolean
  readonly created_at: Date
  readonly version: number
  readonly distinct_ids: ReadonlyArray<string>
}

const ILLEGAL_ANY_CASE = new Set([
  "anonymous",
  "guest",
  "distinctid",
  "distinct_id",
  "id",
  "not_authenticated",
  "email",
  "undefined",
  "true",
  "false"
])
const ILLEGAL_EXACT = new Set(["[object Object]", "NaN", "None", "none", "null", "0", "undefined"])

/** Distinct ids that buggy clients send for everyone: they may own events but never join persons. */
export const isIllegalDistinctId = (id: string): boolean => {
  const trimmed = id.trim()
  const unquoted = /^(['"])(.*)\1$/.exec(trimmed)?.[2] ?? trimmed
  return unquoted === "" || ILLEGAL_ANY_CASE.has(unquoted.toLowerCase()) || ILLEGAL_EXACT.has(unquoted)
}

const DISPLAY_PROPERTIES = ["email", "name", "username"]
const ANONYMOUS_LOOKING = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^[0-9a-f]{32,}$/i

/** Distinct ids with ones a person chose (e-mails, user ids) before generated ones. */
export const sortDistinctIds = (ids: ReadonlyArray<string>): Array<string> =>
  [...ids].sort((a, b) => Number(ANONYMOUS_LOOKING.test(a)) - Number(ANONYMOUS_LOOKING.test(b)) || a.localeCompare(b))

/** How a person is shown: e-mail, name or username, else their most telling distinct id. */
export const displayName = (person: Pick<Person, "id" | "properties" | "distinct_ids">): string => {
  for (const key of DISPLAY_PROPERTIES) {
    const value = person.properties[key]
    if (typeof value === "string" && value.trim() !== "") return value
  }
  return sortDistinctIds(person.distinct_ids)[0] ?? String(person.id)
}

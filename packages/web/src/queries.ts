import { useQuery } from "@tanstack/react-query"
import { api, type Paginated, withQuery } from "./api.js"

// Queries shared by a page and its route's loader, which starts them while the page's code loads.

/** An API answer cached under its path. */
export const pathQuery = <T>(path: string) => ({ queryKey: ["path", path], queryFn: () => api<T>(path) }) as const

/** `key=value` as one exact property filter of `type`; anything else filters nothing. */
const propertyFilter = (text: string, type: "event" | "person") => {
  const at = text.indexOf("=")
  if (at <= 0) return undefined
  return JSON.stringify([{ key: text.slice(0, at).trim(), value: text.slice(at + 1).trim(), operator: "exact", type }])
}

export const personsPath = (id: string, search = "", property = "") =>
  withQuery(`/api/projects/${id}/persons/`, { limit: 100, search, properties: propertyFilter(property, "person") })

export const eventsPath = (id: string, event = "", property = "", person = "") =>
  withQuery(`/api/projects/${id}/events/`, {
    limit: 100,
    event,
    distinct_id: person,
    properties: propertyFilter(property, "event")
  })

/** A filtered list: while new filters load, the previous answer stays on screen. */
export const useList = <T>(path: string, refetchInterval: number | false = false) =>
  useQuery({ ...pathQuery<Paginated<T>>(path), refetchInterval, placeholderData: (previous) => previous })

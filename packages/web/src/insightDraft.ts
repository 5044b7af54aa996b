import { useMutation, useQuery } from "@tanstack/react-query"
import { useEffect, useMemo, useRef, useState } from "react"
import { api, type Insight, type InsightQuery } from "./api.js"

// The insight builder's live result. The insights API computes only stored insights, so the query
// being built lives in a draft insight (`saved: false`, left out of the list), made on the first
// computation and updated as the query changes; saving names it and marks it saved.

/** A builder form's props: the draft it edits and where its changes go. */
export interface DraftFormProps<D> {
  readonly draft: D
  readonly onChange: (draft: D) => void
}

/** `value`, once it has stopped changing for `ms`. */
const useSettled = (value: string, ms: number) => {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

/** The draft of project `id` computing `built` (once it has settled, and when `ready`), and its save. */
export const useInsightDraft = (id: string, built: InsightQuery, ready: boolean) => {
  // Compared as text: a new node object each render is the same query.
  const queryText = useSettled(JSON.stringify(built), 300)
  const query = useMemo(() => JSON.parse(queryText) as InsightQuery, [queryText])
  // Each computation waits for the one before, so that updates reach the draft in order.
  const stored = useRef<Promise<number>>(undefined)
  const previous = useRef<Promise<unknown>>(Promise.resolve())
  const draftPath = async () => `/api/projects/${id}/insights/${await stored.current}/`

  const result = useQuery({
    queryKey: ["insight-draft", id, queryText],
    enabled: ready,
    placeholderData: (last) => last,
    queryFn: () => {
      const run = previous.current
        .catch(() => undefined)
        .then(async () => {
          if (stored.current === undefined) {
            stored.current = api<Insight>(`/api/projects/${id}/insights/`, {
              method: "POST",
              body: { query, saved: false }
            }).then((insight) => insight.id)
          } else {
            await api(await draftPath(), { method: "PATCH", body: { query, saved: false } })
          }
          return api<Insight>(`${await draftPath()}?refresh=blocking`)
        })
      previous.current = run
      return run
    }
  })

  const save = useMutation({
    mutationFn: async (name: string) => {
      await previous.current.catch(() => undefined)
      stored.current ??= api<Insight>(`/api/projects/${id}/insights/`, { method: "POST", body: { query } }).then(
        (insight) => insight.id
      )
      return api<Insight>(await draftPath(), { method: "PATCH", body: { name, query: built, saved: true } })
    }
  })
  return { result, save }
}

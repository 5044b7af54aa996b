import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams, useSearch } from "@tanstack/react-router"
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react"
import { ApiError, api, type Paginated } from "../api.js"
import { ErrorAlert } from "../components/Page.js"
import { ResultTable, toCsv } from "../components/ResultTable.js"
import { lineAndColumn, setEditorText, ZedQLEditor } from "../components/ZedQLEditor.js"

const Chart = lazy(() => import("../components/Chart.js").then((module) => ({ default: module.Chart })))

interface QueryResult {
  readonly results: ReadonlyArray<ReadonlyArray<unknown>>
  readonly columns: ReadonlyArray<string>
  readonly types: ReadonlyArray<readonly [string, string]>
  /** Only for a query without a LIMIT, which Zed pages: `limit` rows from `offset`, and whether more follow. */
  readonly hasMore?: boolean
  readonly limit?: number
  readonly offset?: number
}

/** The query asking for its rows from `offset` on: its own trailing OFFSET replaced, or one added. */
const fromOffset = (query: string, offset: number) =>
  `${query
    .replace(/;\s*$/, "")
    .replace(/\bOFFSET\s+\d+\s*$/i, "")
    .trimEnd()}\nOFFSET ${offset}`

const HISTORY = "zed.sql.history"

const readHistory = (): Array<string> => {
  try {
    return JSON.parse(localStorage.getItem(HISTORY) ?? "[]") as Array<string>
  } catch {
    return []
  }
}

const remember = (text: string) => {
  const list = [text, ...readHistory().filter((entry) => entry !== text)].slice(0, 50)
  localStorage.setItem(HISTORY, JSON.stringify(list))
  return list
}

/** Event and person property names the project has recorded, for completion after `properties.`. */
const usePropertyNames = (id: string) =>
  useQuery({
    queryKey: ["propertyNames", id],
    queryFn: async () => {
      const lists = await Promise.all(
        ["event", "person"].map((type) =>
          api<Paginated<{ readonly name: string }>>(
            `/api/projects/${id}/property_definitions/?type=${type}&exclude_hidden=true&limit=1000`
          )
        )
      )
      return [...new Set(lists.flatMap((list) => list.results.map((definition) => definition.name)))].sort()
    },
    staleTime: 60_000
  })

export const SqlPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  // `?query=…`: a query sent here to be edited, as an insight's "Open in SQL editor" does.
  const opened = (useSearch({ strict: false }) as { query?: unknown }).query
  const [text, setText] = useState(
    () =>
      (typeof opened === "string" ? opened : undefined) ??
      readHistory()[0] ??
      "SELECT event, count() AS total FROM events GROUP BY event ORDER BY total DESC"
  )
  const [history, setHistory] = useState(readHistory)
  const [view, setView] = useState<"table" | "chart">("table")
  // Pages fetched after the first, for the run they belong to (a new run starts over).
  const [later, setLater] = useState<{ readonly run: number; readonly pages: ReadonlyArray<QueryResult> }>({
    run: 0,
    pages: []
  })
  const runs = useRef(0)
  const running = useRef<string>(undefined)
  const editorHost = useRef<HTMLDivElement>(null)
  const propertyNames = usePropertyNames(id)

  const run = useMutation({
    mutationFn: (query: string) => {
      const clientQueryId = crypto.randomUUID()
      running.current = clientQueryId
      setHistory(remember(query))
      runs.current += 1
      more.reset()
      return api<QueryResult>(`/api/projects/${id}/query/`, {
        method: "POST",
        body: { query: { kind: "HogQLQuery", query }, client_query_id: clientQueryId, refresh: "force_blocking" }
      })
    },
    onSettled: () => (running.current = undefined)
  })
  // Ctrl/Cmd+Enter runs the query from anywhere on the page, not only inside the editor.
  const runLatest = useRef(() => run.mutate(text))
  runLatest.current = () => run.mutate(text)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.defaultPrevented) {
        event.preventDefault()
        runLatest.current()
      }
    }
    addEventListener("keydown", onKey)
    return () => removeEventListener("keydown", onKey)
  }, [])
  const cancel = () => {
    if (running.current !== undefined) void api(`/api/projects/${id}/query/${running.current}/`, { method: "DELETE" })
  }
  const save = useMutation({
    mutationFn: (name: string) =>
      api<{ id: number; short_id: string }>(`/api/projects/${id}/insights/`, {
        method: "POST",
        body: {
          name,
          saved: true,
          query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: text } }
        }
      })
  })

  const error = run.error instanceof ApiError ? run.error.body : undefined
  // Query errors carry where in the text they are; others (a cancel, a timeout) do not point anywhere.
  const located = error?.start !== undefined && error.code?.startsWith("zedql") ? error : undefined
  const position = located ? lineAndColumn(run.variables ?? text, located.start!) : undefined
  const mark = useMemo(
    () => (located ? { from: located.start!, to: located.end ?? located.start! } : undefined),
    [located]
  )
  const result = run.data
  const types = result?.types.map(([, type]) => type) ?? []
  const pages = useMemo(
    () => (result ? [result, ...(later.run === runs.current ? later.pages : [])] : []),
    [result, later]
  )
  const rows = useMemo(() => pages.flatMap((page) => page.results), [pages])
  const last = pages.at(-1)
  // Zed answers a query without a LIMIT a page at a time: the next one is the same query from a later OFFSET.
  const more = useMutation({
    mutationFn: ({ page }: { readonly run: number; readonly page: QueryResult }) =>
      api<QueryResult>(`/api/projects/${id}/query/`, {
        method: "POST",
        body: {
          query: { kind: "HogQLQuery", query: fromOffset(run.variables!, page.offset! + page.limit!) },
          refresh: "force_blocking"
        }
      }),
    onSuccess: (page, { run: of }) =>
      setLater((now) =>
        of === runs.current ? { run: of, pages: now.run === of ? [...now.pages, page] : [page] } : now
      )
  })
  const loadMore = () => {
    if (last?.hasMore && !more.isPending) more.mutate({ run: runs.current, page: last })
  }

  const download = () => {
    if (!result) return
    const link = document.createElement("a")
    link.href = URL.createObjectURL(new Blob([toCsv(result.columns, rows)], { type: "text/csv" }))
    link.download = "query.csv"
    link.click()
    URL.revokeObjectURL(link.href)
  }

  return (
    <section className="page sql" aria-labelledby="sql-title">
      <h1 id="sql-title">SQL</h1>
      <div className="sql-layout">
        <div>
          <div ref={editorHost}>
            <ZedQLEditor
              initial={text}
              onChange={setText}
              onRun={() => runLatest.current()}
              propertyNames={propertyNames.data ?? []}
              mark={mark}
            />
          </div>
          <div className="toolbar">
            <button type="button" className="primary" onClick={() => run.mutate(text)} disabled={run.isPending}>
              Run <kbd>Ctrl</kbd>+<kbd>Enter</kbd>
            </button>
            {run.isPending && (
              <button type="button" onClick={cancel}>
                Cancel
              </button>
            )}
            <button
              type="button"
              disabled={!result}
              onClick={() => {
                const name = prompt("Insight name", text.slice(0, 60))
                if (name) save.mutate(name)
              }}
            >
              Save as insight
            </button>
            <button type="button" disabled={!result} onClick={download}>
              Download CSV
            </button>
            {save.data && <span role="status">Saved as insight {save.data.short_id}</span>}
          </div>
          {run.isPending && <p role="status">Running…</p>}
          {run.error && (
            <p role="alert" className="error">
              {error?.code === "query_cancelled" ? "Query cancelled." : run.error.message}
              {position && ` (line ${position.line}, column ${position.column})`}
            </p>
          )}
          {result && (
            <>
              <div className="toolbar">
                <div role="tablist" aria-label="Result view">
                  <button type="button" role="tab" aria-selected={view === "table"} onClick={() => setView("table")}>
                    Table
                  </button>
                  <button type="button" role="tab" aria-selected={view === "chart"} onClick={() => setView("chart")}>
                    Chart
                  </button>
                </div>
                <span className="muted" role="status">
                  {rows.length} rows{last?.hasMore ? ", more as you scroll" : ""}
                </span>
              </div>
              {view === "table" ? (
                <>
                  <ResultTable columns={result.columns} types={types} rows={rows} onEnd={loadMore} />
                  {last?.hasMore && (
                    <div className="toolbar">
                      <button type="button" onClick={loadMore} disabled={more.isPending}>
                        {more.isPending ? "Loading…" : "Load more"}
                      </button>
                    </div>
                  )}
                  <ErrorAlert error={more.error} />
                </>
              ) : (
                <Suspense fallback={<p>Loading chart…</p>}>
                  <Chart columns={result.columns} types={types} rows={rows} />
                </Suspense>
              )}
            </>
          )}
        </div>
        <aside aria-label="Query history" className="history">
          <h2>History</h2>
          <ul>
            {history.map((entry) => (
              <li key={entry}>
                <button
                  type="button"
                  className="link"
                  onClick={() =>
                    setEditorText(editorHost.current?.querySelector(".cm-editor") as HTMLElement | null, entry)
                  }
                >
                  {entry}
                </button>
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </section>
  )
}

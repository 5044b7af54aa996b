import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react"
import { ApiError, api, type Paginated } from "../api.js"
import { ResultTable, toCsv } from "../components/ResultTable.js"
import { lineAndColumn, setEditorText, ZedQLEditor } from "../components/ZedQLEditor.js"

const Chart = lazy(() => import("../components/Chart.js").then((module) => ({ default: module.Chart })))

interface QueryResult {
  readonly results: ReadonlyArray<ReadonlyArray<unknown>>
  readonly columns: ReadonlyArray<string>
  readonly types: ReadonlyArray<readonly [string, string]>
  readonly hasMore?: boolean
}

const HISTORY = "zed.sql.history"
const PAGE = 100

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
  const [text, setText] = useState(
    () => readHistory()[0] ?? "SELECT event, count() AS total FROM events GROUP BY event ORDER BY total DESC"
  )
  const [history, setHistory] = useState(readHistory)
  const [view, setView] = useState<"table" | "chart">("table")
  const [page, setPage] = useState(0)
  const running = useRef<string>(undefined)
  const editorHost = useRef<HTMLDivElement>(null)
  const propertyNames = usePropertyNames(id)

  const run = useMutation({
    mutationFn: (query: string) => {
      const clientQueryId = crypto.randomUUID()
      running.current = clientQueryId
      setHistory(remember(query))
      setPage(0)
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
        body: { name, query: { kind: "DataVisualizationNode", source: { kind: "HogQLQuery", query: text } } }
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
  const rows = result?.results.slice(page * PAGE, (page + 1) * PAGE) ?? []
  const pages = result ? Math.max(1, Math.ceil(result.results.length / PAGE)) : 0

  const download = () => {
    if (!result) return
    const link = document.createElement("a")
    link.href = URL.createObjectURL(new Blob([toCsv(result.columns, result.results)], { type: "text/csv" }))
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
                  {result.results.length} rows{result.hasMore ? " (more in the database: add a LIMIT)" : ""}
                </span>
              </div>
              {view === "table" ? (
                <>
                  <ResultTable columns={result.columns} types={types} rows={rows} />
                  {pages > 1 && (
                    <div className="toolbar">
                      <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
                        Previous
                      </button>
                      <span>
                        Page {page + 1} of {pages}
                      </span>
                      <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
                        Next
                      </button>
                    </div>
                  )}
                </>
              ) : (
                <Suspense fallback={<p>Loading chart…</p>}>
                  <Chart columns={result.columns} types={types} rows={result.results} />
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

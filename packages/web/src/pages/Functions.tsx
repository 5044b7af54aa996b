import "../replay/replay.css"
import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated } from "../api.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { type Draft, draftOf, FunctionEditor, type ZedFunction } from "../functions/FunctionEditor.js"
import { EnabledSwitch, Plugins } from "../functions/Plugins.js"
import { TEMPLATES } from "../functions/templates.js"
import { queryClient } from "../queryClient.js"

// Transformations (in execution order, rearranged by dragging or by their move buttons),
// destinations, and the built-in plugins; a function opens in the editor beside the list.

type Tab = "transformation" | "destination" | "plugins"

const listPath = (id: string, type: "transformation" | "destination") =>
  `/api/projects/${id}/zed_functions/?type=${type}&limit=100`

type Editing = { readonly saved: ZedFunction | undefined; readonly draft: Draft; readonly key: string }

export const FunctionsPage = () => {
  const { id } = useParams({ from: "/project/$id/functions" })
  const [tab, setTab] = useState<Tab>("transformation")
  const [editing, setEditing] = useState<Editing | undefined>()
  const [template, setTemplate] = useState("")
  const [dragged, setDragged] = useState<string | undefined>()
  const type = tab === "plugins" ? "transformation" : tab
  const functions = useQuery({
    queryKey: ["path", listPath(id, type)],
    enabled: tab !== "plugins",
    queryFn: () => api<Paginated<ZedFunction>>(listPath(id, type))
  })
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["path", listPath(id, type)] })
  const rearrange = useMutation({
    mutationFn: (order: ReadonlyArray<ZedFunction>) =>
      api(`/api/projects/${id}/zed_functions/rearrange/`, {
        method: "PATCH",
        body: { orders: Object.fromEntries(order.map((fn, i) => [fn.id, i + 1])) }
      }),
    onSuccess: refresh
  })
  const toggle = useMutation({
    mutationFn: ({ fn, enabled }: { fn: ZedFunction; enabled: boolean }) =>
      api(`/api/projects/${id}/zed_functions/${fn.id}/`, { method: "PATCH", body: { enabled } }),
    onSuccess: refresh
  })

  const list = functions.data?.results ?? []
  /** The list with `moving` put at `to`'s place, as its new execution order. */
  const move = (moving: string, to: number) => {
    const from = list.findIndex((fn) => fn.id === moving)
    if (from < 0 || to < 0 || to >= list.length || from === to) return
    const next = [...list]
    const [item] = next.splice(from, 1)
    next.splice(to, 0, item!)
    rearrange.mutate(next)
  }
  const open = async (fn: ZedFunction) => {
    const full = await api<ZedFunction>(`/api/projects/${id}/zed_functions/${fn.id}/`)
    setEditing({ saved: full, draft: draftOf(full), key: full.id })
  }
  const startNew = () => {
    const chosen = TEMPLATES.find((t) => t.id === template) ?? TEMPLATES.find((t) => t.type === type)!
    setEditing({
      saved: undefined,
      key: `new-${chosen.id}-${Date.now()}`,
      draft: {
        type: chosen.type,
        name: chosen.name,
        description: chosen.description,
        enabled: false,
        code: chosen.code,
        inputs_schema: chosen.inputs_schema,
        values: {},
        events: ""
      }
    })
  }

  return (
    <Page title="Functions">
      <div role="tablist" className="tabs" aria-label="Kinds">
        {(
          [
            ["transformation", "Transformations"],
            ["destination", "Destinations"],
            ["plugins", "Plugins"]
          ] as const
        ).map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={tab === value}
            onClick={() => {
              setTab(value)
              setEditing(undefined)
              setTemplate("")
            }}
          >
            {label}
          </button>
        ))}
      </div>
      {tab === "plugins" ? (
        <Plugins project={id} />
      ) : (
        <div className="functions-layout">
          <div>
            <div className="toolbar">
              <label className="inline">
                Template{" "}
                <select value={template} onChange={(event) => setTemplate(event.target.value)}>
                  <option value="">From scratch</option>
                  {TEMPLATES.filter((t) => t.type === tab && !t.id.startsWith("blank")).map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>
              <button type="button" onClick={startNew}>
                New {tab}
              </button>
            </div>
            <ErrorAlert error={functions.error ?? rearrange.error ?? toggle.error} />
            <ol
              className="function-list"
              aria-label={tab === "transformation" ? "Transformations in execution order" : "Destinations"}
            >
              {list.map((fn, i) => (
                <li
                  key={fn.id}
                  draggable={tab === "transformation"}
                  onDragStart={() => setDragged(fn.id)}
                  onDragOver={(event) => event.preventDefault()}
                  onDrop={() => dragged && move(dragged, i)}
                  className={editing?.saved?.id === fn.id ? "selected" : undefined}
                >
                  <button type="button" className="link" onClick={() => void open(fn)}>
                    {fn.name}
                  </button>
                  <EnabledSwitch
                    name={fn.name}
                    enabled={fn.enabled}
                    onChange={(enabled) => toggle.mutate({ fn, enabled })}
                  />
                  {tab === "transformation" && (
                    <>
                      <button
                        type="button"
                        disabled={i === 0}
                        onClick={() => move(fn.id, i - 1)}
                        aria-label={`Move ${fn.name} up`}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        disabled={i === list.length - 1}
                        onClick={() => move(fn.id, i + 1)}
                        aria-label={`Move ${fn.name} down`}
                      >
                        ↓
                      </button>
                    </>
                  )}
                </li>
              ))}
              {functions.data && list.length === 0 && <li className="muted">None yet.</li>}
            </ol>
          </div>
          {editing && (
            <FunctionEditor
              key={editing.key}
              project={id}
              saved={editing.saved}
              initial={editing.draft}
              onSaved={(fn) => {
                refresh()
                // The same editor goes on, now editing the saved function.
                setEditing({ saved: fn, draft: draftOf(fn), key: editing.key })
              }}
            />
          )}
        </div>
      )}
    </Page>
  )
}

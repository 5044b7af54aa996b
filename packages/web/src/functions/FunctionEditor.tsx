import { useMutation, useQuery } from "@tanstack/react-query"
import { type FormEvent, useEffect, useId, useState } from "react"
import { ApiError, api, type Paginated, withQuery, type ZedEvent } from "../api.js"
import { ErrorAlert } from "../components/Page.js"
import { FunctionMetrics } from "./FunctionMetrics.js"
import { errorPosition, HogEditor } from "./HogEditor.js"
import type { InputSchema } from "./templates.js"

// One function, new or saved: its Hog code (compiled as it is typed, errors shown in place), the
// inputs its schema declares, which events reach it, whether it is on; a test run on a sample or a
// recent event; and, once saved, its logs and health.

export interface ZedFunction {
  readonly id: string
  readonly type: "transformation" | "destination"
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly code: string
  readonly inputs_schema?: ReadonlyArray<InputSchema>
  readonly inputs?: Record<string, { readonly value?: unknown; readonly secret?: boolean }>
  readonly filters: { readonly events?: ReadonlyArray<{ readonly id: string | null }> } | null
  readonly execution_order: number | null
  readonly status: { readonly state: number; readonly tokens: number; readonly rating: number }
}

export interface Draft {
  readonly type: "transformation" | "destination"
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly code: string
  readonly inputs_schema: ReadonlyArray<InputSchema>
  readonly values: Record<string, unknown>
  /** Comma-separated event names; empty for every event. */
  readonly events: string
}

export const draftOf = (fn: ZedFunction): Draft => ({
  type: fn.type,
  name: fn.name,
  description: fn.description,
  enabled: fn.enabled,
  code: fn.code,
  inputs_schema: fn.inputs_schema ?? [],
  values: Object.fromEntries(
    Object.entries(fn.inputs ?? {}).map(([key, input]) => [key, input.secret ? input : input.value])
  ),
  events: (fn.filters?.events ?? []).map((event) => event.id ?? "").join(", ")
})

/** The API's fields for a draft (a saved function's `enabled` is left as the list set it). */
const bodyOf = (draft: Draft, saved: boolean) => {
  const names = draft.events
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")
  return {
    type: draft.type,
    name: draft.name,
    description: draft.description,
    ...(saved ? {} : { enabled: draft.enabled }),
    code: draft.code,
    inputs_schema: draft.inputs_schema,
    inputs: Object.fromEntries(
      draft.inputs_schema
        .filter((input) => draft.values[input.key] !== undefined && draft.values[input.key] !== "")
        .map((input) => {
          const value = draft.values[input.key]
          // A secret shown masked is sent back masked: the API keeps its value.
          return [input.key, typeof value === "object" && value !== null && "secret" in value ? value : { value }]
        })
    ),
    filters: names.length === 0 ? null : { events: names.map((id) => ({ id, type: "events" })) }
  }
}

const SAMPLE = JSON.stringify(
  { event: "$pageview", distinct_id: "sample-user", properties: { $current_url: "https://example.com/", plan: "pro" } },
  null,
  2
)

interface TestResult {
  readonly status: "success" | "error" | "skipped"
  readonly result: unknown
  readonly logs: ReadonlyArray<{ readonly timestamp: string; readonly level: string; readonly message: string }>
}

interface LogEntry {
  readonly id: string
  readonly timestamp: string
  readonly type: string
  readonly source: string
  readonly message: string
}

const fieldError = (error: Error | null, attr: string) =>
  error instanceof ApiError && error.body.attr === attr ? error.body.detail : undefined

const InputField = ({
  input,
  value,
  onChange,
  error
}: {
  readonly input: InputSchema
  readonly value: unknown
  readonly onChange: (value: unknown) => void
  readonly error: string | undefined
}) => {
  const id = useId()
  const label = `${input.label ?? input.key}${input.required ? " (required)" : ""}`
  const masked = typeof value === "object" && value !== null && "secret" in value
  const text = masked ? "" : typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value)
  const described = error ? `${id}-error` : undefined
  const field =
    input.type === "boolean" ? (
      <input id={id} type="checkbox" checked={value === true} onChange={(event) => onChange(event.target.checked)} />
    ) : input.type === "choice" ? (
      <select id={id} value={text} onChange={(event) => onChange(event.target.value)} aria-describedby={described}>
        <option value="">Choose…</option>
        {(input.choices ?? []).map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    ) : input.type === "json" || input.type === "dictionary" ? (
      <textarea
        id={id}
        rows={3}
        defaultValue={text}
        aria-describedby={described}
        onChange={(event) => {
          try {
            onChange(JSON.parse(event.target.value))
          } catch {
            onChange(event.target.value)
          }
        }}
      />
    ) : (
      <input
        id={id}
        type={input.type === "number" ? "number" : input.secret ? "password" : "text"}
        value={text}
        placeholder={masked ? "(secret, kept)" : undefined}
        aria-describedby={described}
        onChange={(event) => onChange(input.type === "number" ? Number(event.target.value) : event.target.value)}
      />
    )
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {field}
      {input.description && <small className="muted">{input.description}</small>}
      {error && (
        <small id={`${id}-error`} className="error">
          {error}
        </small>
      )}
    </div>
  )
}

export const FunctionEditor = ({
  project,
  saved,
  initial,
  onSaved
}: {
  readonly project: string
  /** The saved function, or undefined for a new one. */
  readonly saved: ZedFunction | undefined
  readonly initial: Draft
  readonly onSaved: (fn: ZedFunction) => void
}) => {
  const [draft, setDraft] = useState(initial)
  const [sample, setSample] = useState(SAMPLE)
  const [compileError, setCompileError] = useState<string | null>(null)
  const [newInput, setNewInput] = useState("")
  const base = `/api/projects/${project}/zed_functions/`
  const ids = { name: useId(), description: useId(), events: useId(), sample: useId(), code: useId() }

  // Compiled as typed (after a pause): the error, with its position marked in the editor.
  useEffect(() => {
    const timer = setTimeout(() => {
      api(`${base}compile/`, { method: "POST", body: { code: draft.code } })
        .then(() => setCompileError(null))
        .catch((error: Error) =>
          setCompileError(error instanceof ApiError ? (error.body.detail ?? error.message) : null)
        )
    }, 400)
    return () => clearTimeout(timer)
  }, [draft.code])

  const save = useMutation({
    mutationFn: (event: FormEvent) => {
      event.preventDefault()
      return saved
        ? api<ZedFunction>(`${base}${saved.id}/`, { method: "PATCH", body: bodyOf(draft, saved !== undefined) })
        : api<ZedFunction>(base, { method: "POST", body: bodyOf(draft, saved !== undefined) })
    },
    onSuccess: onSaved
  })
  const test = useMutation({
    mutationFn: () => {
      let event: unknown
      try {
        event = JSON.parse(sample)
      } catch {
        throw new Error("The sample event is not valid JSON.")
      }
      return api<TestResult>(saved ? `${base}${saved.id}/invocations/` : `${base}invocations/`, {
        method: "POST",
        body: { configuration: bodyOf(draft, saved !== undefined), globals: { event } }
      })
    }
  })
  const recent = useMutation({
    mutationFn: async () => {
      const names = draft.events
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "")
      const latest = (
        await api<Paginated<ZedEvent>>(withQuery(`/api/projects/${project}/events/`, { limit: 1, event: names[0] }))
      ).results[0]
      if (!latest) throw new Error("No recent event to test with.")
      const { event, distinct_id, properties } = latest
      setSample(JSON.stringify({ event, distinct_id, properties }, null, 2))
    }
  })
  const logs = useQuery({
    queryKey: ["functionLogs", project, saved?.id],
    enabled: saved !== undefined,
    queryFn: () => api<Paginated<LogEntry>>(`${base}${saved!.id}/logs/?limit=50`)
  })

  const error = save.error
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft({ ...draft, [key]: value })

  return (
    <div className="function-editor">
      <form onSubmit={(event) => save.mutate(event)} aria-label="Function">
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input id={ids.name} value={draft.name} onChange={(event) => set("name", event.target.value)} />
          {fieldError(error, "name") && <small className="error">{fieldError(error, "name")}</small>}
        </div>
        <div className="field">
          <label htmlFor={ids.description}>Description</label>
          <input
            id={ids.description}
            value={draft.description}
            onChange={(event) => set("description", event.target.value)}
          />
        </div>
        <div className="field">
          <span id={ids.code}>Hog code</span>
          <HogEditor
            label="Hog code"
            value={draft.code}
            onChange={(code) => set("code", code)}
            error={compileError ? errorPosition(compileError) : null}
          />
          <p className={compileError ? "error" : "muted"} aria-live="polite" data-testid="compile-status">
            {compileError ?? "Compiles."}
          </p>
        </div>
        <fieldset>
          <legend>Inputs</legend>
          {draft.inputs_schema.map((input) => (
            <InputField
              key={input.key}
              input={input}
              value={draft.values[input.key]}
              onChange={(value) => set("values", { ...draft.values, [input.key]: value })}
              error={fieldError(error, `inputs__${input.key}`)}
            />
          ))}
          <div className="toolbar">
            <label className="inline">
              New input key <input value={newInput} onChange={(event) => setNewInput(event.target.value)} />
            </label>
            <button
              type="button"
              disabled={newInput.trim() === "" || draft.inputs_schema.some((input) => input.key === newInput.trim())}
              onClick={() => {
                set("inputs_schema", [...draft.inputs_schema, { key: newInput.trim(), type: "string" }])
                setNewInput("")
              }}
            >
              Add input
            </button>
          </div>
        </fieldset>
        <div className="field">
          <label htmlFor={ids.events}>Only these events (comma-separated; empty: every event)</label>
          <input id={ids.events} value={draft.events} onChange={(event) => set("events", event.target.value)} />
          {fieldError(error, "filters") && <small className="error">{fieldError(error, "filters")}</small>}
        </div>
        {/* A saved function is switched on and off in the list, so that the two never disagree. */}
        {!saved && (
          <label className="inline">
            <input type="checkbox" checked={draft.enabled} onChange={(event) => set("enabled", event.target.checked)} />{" "}
            Enabled
          </label>
        )}
        <div className="toolbar">
          <button type="submit" className="primary">
            {saved ? "Save" : "Create"}
          </button>
          {save.isSuccess && <span role="status">Saved.</span>}
        </div>
        <ErrorAlert error={error} />
      </form>

      <section aria-labelledby={`${ids.sample}-title`}>
        <h2 id={`${ids.sample}-title`}>Test</h2>
        <label htmlFor={ids.sample}>Sample event (JSON)</label>
        <textarea id={ids.sample} rows={8} value={sample} onChange={(event) => setSample(event.target.value)} />
        <div className="toolbar">
          <button type="button" onClick={() => test.mutate()}>
            Run test
          </button>
          <button type="button" onClick={() => recent.mutate()}>
            Use a recent event
          </button>
        </div>
        <ErrorAlert error={test.error ?? recent.error} />
        {test.data && (
          <div aria-label="Test result" role="region">
            <p>
              Status: <strong>{test.data.status}</strong>
            </p>
            <pre className="test-result">{JSON.stringify(test.data.result, null, 2)}</pre>
            <ol className="logs" aria-label="Test logs">
              {test.data.logs.map((line, i) => (
                <li key={i}>
                  <strong>{line.level}</strong> {line.message}
                </li>
              ))}
            </ol>
          </div>
        )}
      </section>

      {saved && (
        <section aria-label="Logs and metrics">
          <h2>Health</h2>
          <p>
            {saved.status.tokens === 0
              ? "No invocations yet in this process."
              : `${Math.round(saved.status.rating * 100)}% of the last ${saved.status.tokens} invocations succeeded (${saved.status.state === 1 ? "healthy" : "degraded"}).`}
          </p>
          <FunctionMetrics path={`${base}${saved.id}/`} />
          <h2>Logs</h2>
          <button type="button" onClick={() => void logs.refetch()}>
            Refresh logs
          </button>
          <ol className="logs" aria-label="Function logs">
            {(logs.data?.results ?? []).map((entry) => (
              <li key={entry.id}>
                <span className="muted">{new Date(entry.timestamp).toLocaleString()}</span>{" "}
                <strong>{entry.type}</strong> {entry.message}
              </li>
            ))}
            {logs.data?.results.length === 0 && <li className="muted">No log entries.</li>}
          </ol>
        </section>
      )}
    </div>
  )
}

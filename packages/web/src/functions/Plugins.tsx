import { useMutation, useQuery } from "@tanstack/react-query"
import { useEffect, useState } from "react"
import { api, type Paginated } from "../api.js"
import { ErrorAlert } from "../components/Page.js"
import { queryClient } from "../queryClient.js"

// The built-in plugins: each one's switch, its settings (from its config schema) and its logs.

interface PluginConfig {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly enabled: boolean
  readonly config: Record<string, unknown>
  readonly plugin_info: {
    readonly config_schema: ReadonlyArray<{
      readonly key: string
      readonly name: string
      readonly type: "string" | "boolean"
      readonly hint: string
    }>
  }
}

interface LogEntry {
  readonly id: string
  readonly timestamp: string
  readonly type: string
  readonly message: string
}

/** An on/off switch showing the new state at once, while the change is saved. */
export const EnabledSwitch = ({
  name,
  enabled,
  onChange
}: {
  readonly name: string
  readonly enabled: boolean
  readonly onChange: (enabled: boolean) => void
}) => {
  const [shown, setShown] = useState(enabled)
  useEffect(() => setShown(enabled), [enabled])
  return (
    <label className="inline">
      <input
        type="checkbox"
        checked={shown}
        onChange={(event) => {
          setShown(event.target.checked)
          onChange(event.target.checked)
        }}
      />{" "}
      Enabled<span className="visually-hidden"> {name}</span>
    </label>
  )
}

const PluginCard = ({ project, plugin }: { readonly project: string; readonly plugin: PluginConfig }) => {
  const [config, setConfig] = useState(plugin.config)
  const [showLogs, setShowLogs] = useState(false)
  const path = `/api/projects/${project}/plugin_configs/${plugin.id}/`
  const update = useMutation({
    mutationFn: (body: Record<string, unknown>) => api(path, { method: "PATCH", body }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["pluginConfigs", project] })
  })
  const logs = useQuery({
    queryKey: ["pluginLogs", project, plugin.id],
    enabled: showLogs,
    queryFn: () => api<Paginated<LogEntry>>(`${path}logs/?limit=50`)
  })
  return (
    <li className="plugin">
      <h3>{plugin.name}</h3>
      <p className="muted">{plugin.description}</p>
      <EnabledSwitch name={plugin.name} enabled={plugin.enabled} onChange={(enabled) => update.mutate({ enabled })} />
      {plugin.plugin_info.config_schema.length > 0 && (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            update.mutate({ config })
          }}
        >
          {plugin.plugin_info.config_schema.map((field) => (
            <label key={field.key} className={field.type === "boolean" ? "inline" : "field"}>
              {field.type === "boolean" ? (
                <input
                  type="checkbox"
                  checked={config[field.key] === true}
                  onChange={(event) => setConfig({ ...config, [field.key]: event.target.checked })}
                />
              ) : null}
              {field.name}
              {field.type === "string" && (
                <input
                  value={String(config[field.key] ?? "")}
                  onChange={(event) => setConfig({ ...config, [field.key]: event.target.value })}
                />
              )}
              <small className="muted">{field.hint}</small>
            </label>
          ))}
          <button type="submit">Save settings</button>
        </form>
      )}
      <ErrorAlert error={update.error} />
      <button type="button" aria-expanded={showLogs} onClick={() => setShowLogs(!showLogs)}>
        Logs<span className="visually-hidden"> of {plugin.name}</span>
      </button>
      {showLogs && (
        <ol className="logs" aria-label={`Logs of ${plugin.name}`}>
          {(logs.data?.results ?? []).map((entry) => (
            <li key={entry.id}>
              <span className="muted">{new Date(entry.timestamp).toLocaleString()}</span> <strong>{entry.type}</strong>{" "}
              {entry.message}
            </li>
          ))}
          {logs.data?.results.length === 0 && <li className="muted">No log entries.</li>}
        </ol>
      )}
    </li>
  )
}

export const Plugins = ({ project }: { readonly project: string }) => {
  const configs = useQuery({
    queryKey: ["pluginConfigs", project],
    queryFn: () => api<Paginated<PluginConfig>>(`/api/projects/${project}/plugin_configs/?limit=100`)
  })
  return (
    <>
      <ErrorAlert error={configs.error} />
      <ul className="plugin-list" aria-label="Plugins">
        {(configs.data?.results ?? []).map((plugin) => (
          <PluginCard key={plugin.id} project={project} plugin={plugin} />
        ))}
      </ul>
    </>
  )
}

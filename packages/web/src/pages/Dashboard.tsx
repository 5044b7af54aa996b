import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, apiRoot, type Insight, type Paginated, type PropertyFilter } from "../api.js"
import { DATE_RANGES } from "../components/DateRangeChoice.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { ErrorAlert, Page } from "../components/Page.js"
import type { Layout } from "../dashboards/grid.js"
import { type Dashboard, type DashboardFilters, dashboardPath, type Sharing } from "../dashboards/model.js"
import { TileGrid } from "../dashboards/TileGrid.js"
import "../dashboards/dashboards.css"
import { insightName } from "../insightKinds.js"
import { insightsPath } from "../pages.js"
import { pathQuery, useList } from "../queries.js"
import { queryClient } from "../queryClient.js"

// One dashboard: its tiles on the grid, the date range and property filter applied to all of them
// (saved on the dashboard, as PostHog's `filters`), refresh now or every few minutes, insights and
// text cards added, and its public link.

const DATE_CHOICES = { "": "Each insight's own range", ...DATE_RANGES } as Record<string, string>

const AUTO_REFRESH = { "0": "Off", "60": "Every minute", "300": "Every 5 minutes", "900": "Every 15 minutes" } as const

/** `key=value` as the dashboard's one exact event property filter; "" for none. */
const propertyText = (filters: DashboardFilters) => {
  const [first] = filters.properties ?? []
  return first ? `${first.key}=${String(first.value)}` : ""
}
const propertiesOf = (text: string): ReadonlyArray<PropertyFilter> => {
  const at = text.indexOf("=")
  if (at <= 0) return []
  return [{ key: text.slice(0, at).trim(), value: text.slice(at + 1).trim(), operator: "exact", type: "event" }]
}

const FiltersForm = ({
  filters,
  pending,
  onApply
}: {
  readonly filters: DashboardFilters
  readonly pending: boolean
  readonly onApply: (filters: DashboardFilters) => void
}) => {
  const [dateFrom, setDateFrom] = useState(filters.date_from ?? "")
  const [property, setProperty] = useState(propertyText(filters))
  return (
    <InlineForm
      label="Dashboard filters"
      className="filters"
      onSubmit={() => onApply({ date_from: dateFrom || null, date_to: null, properties: propertiesOf(property) })}
    >
      <Choice label="Date range" value={dateFrom} options={DATE_CHOICES} onChange={setDateFrom} />
      <Field label="Property" value={property} onChange={setProperty} placeholder="$browser=Chrome" />
      <button type="submit" disabled={pending}>
        Apply filters
      </button>
    </InlineForm>
  )
}

const ShareLink = ({ project, dashboard }: { readonly project: string; readonly dashboard: number }) => {
  const path = `/api/projects/${project}/dashboards/${dashboard}/sharing/`
  const sharing = useQuery(pathQuery<Sharing>(path))
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api<Sharing>(path, { method: "PATCH", body: { enabled } }),
    onSuccess: (saved) => queryClient.setQueryData(["path", path], saved)
  })
  const enabled = sharing.data?.enabled ?? false
  const link = sharing.data && `${location.origin}${apiRoot}/shared/${sharing.data.access_token}`
  return (
    <section className="share" aria-label="Sharing">
      <button type="button" disabled={!sharing.data || toggle.isPending} onClick={() => toggle.mutate(!enabled)}>
        {enabled ? "Stop sharing" : "Share by link"}
      </button>
      {enabled && link && (
        <label>
          Public link
          <input readOnly value={link} onFocus={(event) => event.target.select()} />
        </label>
      )}
      <ErrorAlert error={sharing.error ?? toggle.error} />
    </section>
  )
}

type Listed = Insight & { readonly dashboards?: ReadonlyArray<number> }

const AddTiles = ({ project, dashboard }: { readonly project: string; readonly dashboard: number }) => {
  const insights = useList<Listed>(insightsPath(project))
  const [chosen, setChosen] = useState("")
  const [text, setText] = useState("")
  const reload = () => queryClient.invalidateQueries({ queryKey: ["path", dashboardPath(project, String(dashboard))] })
  const addInsight = useMutation({
    mutationFn: (insight: Listed) =>
      api(`/api/projects/${project}/insights/${insight.id}/`, {
        method: "PATCH",
        body: { dashboards: [...(insight.dashboards ?? []), dashboard] }
      }),
    onSuccess: () => {
      setChosen("")
      void queryClient.invalidateQueries({ queryKey: ["path", insightsPath(project)] })
      return reload()
    }
  })
  const addText = useMutation({
    mutationFn: () =>
      api(`/api/projects/${project}/dashboards/${dashboard}/`, {
        method: "PATCH",
        body: { tiles: [{ text: { body: text } }] }
      }),
    onSuccess: () => {
      setText("")
      return reload()
    }
  })
  const choices = (insights.data?.results ?? []).filter((i) => !(i.dashboards ?? []).includes(dashboard))
  const options = Object.fromEntries([["", "Choose an insight"], ...choices.map((i) => [String(i.id), insightName(i)])])
  return (
    <div className="add-tiles">
      <InlineForm
        label="Add an insight"
        onSubmit={() => {
          const insight = choices.find((i) => String(i.id) === chosen)
          if (insight) addInsight.mutate(insight)
        }}
      >
        <Choice label="Insight" value={chosen} options={options} onChange={setChosen} />
        <button type="submit" disabled={chosen === "" || addInsight.isPending}>
          Add insight
        </button>
      </InlineForm>
      <InlineForm label="Add a text card" onSubmit={() => addText.mutate()}>
        <label>
          Text card
          <textarea value={text} rows={1} onChange={(event) => setText(event.target.value)} required />
        </label>
        <button type="submit" disabled={addText.isPending}>
          Add text
        </button>
      </InlineForm>
      <ErrorAlert error={insights.error ?? addInsight.error ?? addText.error} />
    </div>
  )
}

export const DashboardPage = () => {
  const { id, dashboardId } = useParams({ from: "/project/$id/dashboard/$dashboardId" })
  const [every, setEvery] = useState<keyof typeof AUTO_REFRESH>("0")
  // Under its path, as the route's loader and main.ts start it.
  const first = pathQuery<Dashboard>(dashboardPath(id, dashboardId))
  const dashboard = useQuery({ ...first, refetchInterval: every === "0" ? false : Number(every) * 1000 })
  const refreshAll = useMutation({
    mutationFn: () => api<Dashboard>(dashboardPath(id, dashboardId, "force_blocking")),
    onSuccess: (fresh) => queryClient.setQueryData(first.queryKey, fresh)
  })
  const patch = (body: Record<string, unknown>) =>
    api<Dashboard>(`/api/projects/${id}/dashboards/${dashboardId}/`, { method: "PATCH", body })
  const saveLayouts = useMutation({
    mutationFn: (changes: ReadonlyArray<readonly [number, Layout]>) => {
      const tiles = dashboard.data?.tiles ?? []
      return patch({
        tiles: changes.map(([tile, sm]) => ({
          id: tile,
          layouts: { ...tiles.find((t) => t.id === tile)?.layouts, sm }
        }))
      })
    },
    // Only the layouts: the results on screen stay as they are.
    onSuccess: (saved) =>
      queryClient.setQueryData(
        first.queryKey,
        (shown: Dashboard | undefined) =>
          shown && {
            ...shown,
            tiles: shown.tiles.map((t) => ({
              ...t,
              layouts: saved.tiles.find((s) => s.id === t.id)?.layouts ?? t.layouts
            }))
          }
      )
  })
  const remove = useMutation({
    mutationFn: (tile: number) => patch({ tiles: [{ id: tile, deleted: true }] }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: first.queryKey })
  })
  const applyFilters = useMutation({
    mutationFn: (filters: DashboardFilters) => patch({ filters }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: first.queryKey })
  })
  const data = dashboard.data
  return (
    <Page title={data ? data.name || "Untitled dashboard" : "Dashboard"} className="page dashboard">
      <ErrorAlert
        error={dashboard.error ?? refreshAll.error ?? saveLayouts.error ?? remove.error ?? applyFilters.error}
      />
      {data && (
        <>
          {data.description && <p className="description">{data.description}</p>}
          <div className="dashboard-bar">
            <FiltersForm
              key={JSON.stringify(data.filters)}
              filters={data.filters}
              pending={applyFilters.isPending}
              onApply={(filters) => applyFilters.mutate(filters)}
            />
            <button type="button" disabled={refreshAll.isPending} onClick={() => refreshAll.mutate()}>
              {refreshAll.isPending ? "Refreshing…" : "Refresh all"}
            </button>
            <Choice label="Auto refresh" value={every} options={AUTO_REFRESH} onChange={setEvery} />
            <ShareLink project={id} dashboard={data.id} />
          </div>
          <p className="muted" aria-live="polite">
            {dashboard.isFetching || applyFilters.isPending
              ? "Computing…"
              : `Updated ${new Date(dashboard.dataUpdatedAt).toLocaleTimeString()}`}
          </p>
          <AddTiles project={id} dashboard={data.id} />
          {data.tiles.length === 0 && <p className="muted">No tiles yet: add an insight or a text card.</p>}
          <TileGrid
            project={id}
            tiles={data.tiles}
            onLayouts={(changes) => saveLayouts.mutate(changes)}
            onRemove={(tile) => remove.mutate(tile.id)}
          />
        </>
      )}
    </Page>
  )
}

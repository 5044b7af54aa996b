import { useMutation } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api } from "../api.js"
import { Field, InlineForm } from "../components/Field.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { type Dashboard, type DashboardBasic, dashboardsListPath, dashboardsPath } from "../dashboards/model.js"
import { useList } from "../queries.js"
import { queryClient } from "../queryClient.js"

// The project's dashboards: made, renamed, duplicated and deleted (softly, as the API does) here;
// each opens its grid of tiles.

const Row = ({ project, dashboard }: { readonly project: string; readonly dashboard: DashboardBasic }) => {
  const navigate = useNavigate()
  const [renaming, setRenaming] = useState<string | null>(null)
  // The list and the dashboard's own page, which shows its name.
  const refreshList = () =>
    queryClient.invalidateQueries({ predicate: (q) => String(q.queryKey[1]).startsWith(dashboardsPath(project)) })
  const change = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api(`${dashboardsPath(project)}${dashboard.id}/`, { method: "PATCH", body }),
    onSuccess: () => {
      setRenaming(null)
      return refreshList()
    }
  })
  const duplicate = useMutation({
    mutationFn: () =>
      api<Dashboard>(dashboardsPath(project), {
        method: "POST",
        body: { name: `${dashboard.name} (Copy)`, description: dashboard.description, use_dashboard: dashboard.id }
      }),
    onSuccess: (copy) => {
      void refreshList()
      return navigate({
        to: "/project/$id/dashboard/$dashboardId",
        params: { id: project, dashboardId: String(copy.id) }
      })
    }
  })
  const name = dashboard.name || "Untitled"
  return (
    <tr>
      <td>
        {renaming === null ? (
          <>
            {dashboard.pinned && <span aria-label="Pinned">📌 </span>}
            <Link to="/project/$id/dashboard/$dashboardId" params={{ id: project, dashboardId: String(dashboard.id) }}>
              {name}
            </Link>
            {dashboard.description && <div className="muted">{dashboard.description}</div>}
          </>
        ) : (
          <InlineForm label={`Rename ${name}`} onSubmit={() => change.mutate({ name: renaming })}>
            <Field label="New name" value={renaming} onChange={setRenaming} required />
            <button type="submit">Save</button>
            <button type="button" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </InlineForm>
        )}
        <ErrorAlert error={change.error ?? duplicate.error} />
      </td>
      <td>{dashboard.is_shared ? "Shared" : "—"}</td>
      <td>{dashboard.created_by?.first_name || dashboard.created_by?.email}</td>
      <td>{new Date(dashboard.created_at).toLocaleString()}</td>
      <td className="actions">
        <button
          type="button"
          className="link"
          aria-label={`Rename ${name}`}
          onClick={() => setRenaming(dashboard.name)}
        >
          Rename
        </button>{" "}
        <button
          type="button"
          className="link"
          aria-label={`Duplicate ${name}`}
          disabled={duplicate.isPending}
          onClick={() => duplicate.mutate()}
        >
          Duplicate
        </button>{" "}
        <button
          type="button"
          className="link"
          aria-label={`Delete ${name}`}
          disabled={change.isPending}
          onClick={() => change.mutate({ deleted: true })}
        >
          Delete
        </button>
      </td>
    </tr>
  )
}

export const DashboardsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const [name, setName] = useState("")
  const dashboards = useList<DashboardBasic>(dashboardsListPath(id))
  const create = useMutation({
    mutationFn: () => api<Dashboard>(dashboardsPath(id), { method: "POST", body: { name } }),
    onSuccess: (made) => {
      void queryClient.invalidateQueries({ queryKey: ["path", dashboardsListPath(id)] })
      return navigate({ to: "/project/$id/dashboard/$dashboardId", params: { id, dashboardId: String(made.id) } })
    }
  })
  const shown = dashboards.data?.results ?? []
  return (
    <Page title="Dashboards">
      <InlineForm label="New dashboard" onSubmit={() => create.mutate()}>
        <Field label="Name" value={name} onChange={setName} placeholder="Weekly numbers" required />
        <button type="submit" className="primary" disabled={create.isPending}>
          New dashboard
        </button>
      </InlineForm>
      <ErrorAlert error={dashboards.error ?? create.error} />
      <table className="list" aria-label="Dashboards">
        <ListHead columns={["Name", "Sharing", "Created by", "Created", "Actions"]} />
        <tbody>
          {shown.map((dashboard) => (
            <Row key={dashboard.id} project={id} dashboard={dashboard} />
          ))}
        </tbody>
      </table>
      {dashboards.data && shown.length === 0 && <p className="muted">No dashboards yet.</p>}
    </Page>
  )
}

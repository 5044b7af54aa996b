import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { withQuery } from "../api.js"
import { Field, Filters } from "../components/Field.js"
import { Holdouts } from "../components/Holdouts.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import type { Experiment } from "../experimentModel.js"
import { useList } from "../queries.js"

/** The project's experiments matching `search`: archived ones, or the others. */
export const experimentsPath = (id: string, search = "", archived = false) =>
  withQuery(`/api/projects/${id}/experiments/`, { limit: 100, search, archived: String(archived) })

const STATUS = { draft: "Draft", running: "Running", stopped: "Stopped" } as const

export const day = (date: string | null) => (date === null ? "—" : new Date(date).toLocaleDateString())

export const ExperimentsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [archived, setArchived] = useState(false)
  const experiments = useList<Experiment>(experimentsPath(id, search, archived))
  return (
    <Page title="Experiments">
      <Link to="/project/$id/experiments/$experimentId" params={{ id, experimentId: "new" }} className="button primary">
        New experiment
      </Link>
      <Filters label="Experiment filters">
        <Field label="Search" type="search" value={search} onChange={setSearch} placeholder="name" />
        <label className="inline">
          <input type="checkbox" checked={archived} onChange={(event) => setArchived(event.target.checked)} /> Archived
        </label>
      </Filters>
      <ErrorAlert error={experiments.error} />
      <table className="list" aria-label="Experiments">
        <ListHead columns={["Name", "Status", "Flag", "Started", "Ended"]} />
        <tbody>
          {(experiments.data?.results ?? []).map((experiment) => (
            <tr key={experiment.id}>
              <td>
                <Link to="/project/$id/experiments/$experimentId" params={{ id, experimentId: String(experiment.id) }}>
                  {experiment.name}
                </Link>
              </td>
              <td>{STATUS[experiment.status]}</td>
              <td>
                <code>{experiment.feature_flag_key}</code>
              </td>
              <td>{day(experiment.start_date)}</td>
              <td>{day(experiment.end_date)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {experiments.data?.results.length === 0 && <p className="muted">No experiments match.</p>}
      <Holdouts id={id} />
    </Page>
  )
}

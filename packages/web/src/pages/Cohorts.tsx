import { Link, useParams } from "@tanstack/react-router"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { useList } from "../queries.js"

/** A cohort as the cohorts API answers it. */
export interface Cohort {
  readonly id: number
  readonly name: string
  readonly description?: string | null
  readonly filters: { readonly properties: unknown } | null
  readonly is_static: boolean
  readonly count?: number | null
  readonly is_calculating?: boolean
  readonly last_calculation?: string | null
  readonly created_at: string
}

export const cohortsPath = (id: string) => `/api/projects/${id}/cohorts/?limit=100`

export const CohortsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const cohorts = useList<Cohort>(cohortsPath(id))
  return (
    <Page title="Cohorts">
      <Link to="/project/$id/cohorts/$cohortId" params={{ id, cohortId: "new" }} className="button primary">
        New cohort
      </Link>
      <ErrorAlert error={cohorts.error} />
      <table className="list" aria-label="Cohorts">
        <ListHead columns={["Name", "Type", "Created"]} />
        <tbody>
          {(cohorts.data?.results ?? []).map((cohort) => (
            <tr key={cohort.id}>
              <td>
                <Link to="/project/$id/cohorts/$cohortId" params={{ id, cohortId: String(cohort.id) }}>
                  {cohort.name}
                </Link>
                {cohort.description && <div className="muted">{cohort.description}</div>}
              </td>
              <td>{cohort.is_static ? "Static" : "Dynamic"}</td>
              <td>{new Date(cohort.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {cohorts.data?.results.length === 0 && <p className="muted">No cohorts yet.</p>}
    </Page>
  )
}

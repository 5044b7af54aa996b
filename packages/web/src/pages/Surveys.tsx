import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { withQuery } from "../api.js"
import { Field, Filters } from "../components/Field.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { useList } from "../queries.js"
import { type Survey, SURVEY_TYPES, surveyStatus } from "../surveyModel.js"

/** The project's surveys matching `search`: archived ones, or the others. */
export const surveysPath = (id: string, search = "", archived = false) =>
  withQuery(`/api/projects/${id}/surveys/`, { limit: 100, search, archived: String(archived) })

export const SurveysPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [archived, setArchived] = useState(false)
  const surveys = useList<Survey>(surveysPath(id, search, archived))
  return (
    <Page title="Surveys">
      <Link to="/project/$id/surveys/$surveyId" params={{ id, surveyId: "new" }} className="button primary">
        New survey
      </Link>
      <Filters label="Survey filters">
        <Field label="Search" type="search" value={search} onChange={setSearch} placeholder="name" />
        <label className="inline">
          <input type="checkbox" checked={archived} onChange={(event) => setArchived(event.target.checked)} /> Archived
        </label>
      </Filters>
      <ErrorAlert error={surveys.error} />
      <table className="list" aria-label="Surveys">
        <ListHead columns={["Name", "Type", "Status", "Questions", "Created by"]} />
        <tbody>
          {(surveys.data?.results ?? []).map((survey) => (
            <tr key={survey.id}>
              <td>
                <Link to="/project/$id/surveys/$surveyId" params={{ id, surveyId: survey.id }}>
                  {survey.name}
                </Link>
              </td>
              <td>{SURVEY_TYPES[survey.type as keyof typeof SURVEY_TYPES] ?? survey.type}</td>
              <td>{surveyStatus(survey)}</td>
              <td className="number">{survey.questions.length}</td>
              <td>{survey.created_by?.first_name || survey.created_by?.email}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {surveys.data?.results.length === 0 && <p className="muted">No surveys match.</p>}
    </Page>
  )
}

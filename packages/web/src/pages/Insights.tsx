import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import type { Insight } from "../api.js"
import { Choice, Field, Filters } from "../components/Field.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { insightName, KINDS, kindOf } from "../insightKinds.js"
import { insightsPath } from "../pages.js"
import { useList } from "../queries.js"

const KIND_CHOICES: Record<string, string> = {
  "": "All kinds",
  ...Object.fromEntries(Object.values(KINDS).map((label) => [label, label]))
}

export const InsightsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [kind, setKind] = useState("")
  const [favorited, setFavorited] = useState(false)
  const insights = useList<Insight>(insightsPath(id, search, favorited))
  // The API has no kind filter and lists newest first: both are done here, over its page of 100.
  const shown = (insights.data?.results ?? [])
    .filter((insight) => kind === "" || kindOf(insight) === kind)
    .sort((a, b) => b.last_modified_at.localeCompare(a.last_modified_at))
  return (
    <Page title="Insights">
      <Link to="/project/$id/insights/new" params={{ id }} className="button primary">
        New insight
      </Link>
      <Filters label="Insight filters">
        <Field
          label="Search"
          type="search"
          value={search}
          onChange={setSearch}
          placeholder="name, description or tag"
        />
        <Choice label="Kind" value={kind} options={KIND_CHOICES} onChange={setKind} />
        <label className="inline">
          <input type="checkbox" checked={favorited} onChange={(event) => setFavorited(event.target.checked)} />{" "}
          Favourites only
        </label>
      </Filters>
      <ErrorAlert error={insights.error} />
      <table className="list" aria-label="Insights">
        <ListHead columns={["Name", "Kind", "Tags", "Created by", "Last modified"]} />
        <tbody>
          {shown.map((insight) => (
            <tr key={insight.id}>
              <td>
                {insight.favorited && <span aria-label="Favourite">★ </span>}
                <Link to="/project/$id/insights/$shortId" params={{ id, shortId: insight.short_id }}>
                  {insightName(insight)}
                </Link>
                {insight.description && <div className="muted">{insight.description}</div>}
              </td>
              <td>{kindOf(insight) ?? insight.query?.kind ?? "—"}</td>
              <td>{insight.tags.join(", ")}</td>
              <td>{insight.created_by?.first_name || insight.created_by?.email}</td>
              <td>{new Date(insight.last_modified_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {insights.data && shown.length === 0 && <p className="muted">No insights match.</p>}
    </Page>
  )
}

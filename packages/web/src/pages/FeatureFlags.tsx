import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { withQuery } from "../api.js"
import { Choice, Field, Filters } from "../components/Field.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { type FeatureFlag, rolloutSummary } from "../flagModel.js"
import { useList } from "../queries.js"

/** The project's live flags matching `search`, only active or inactive ones if asked. */
export const flagsPath = (id: string, search = "", active = "") =>
  withQuery(`/api/projects/${id}/feature_flags/`, { limit: 100, search, active })

const creator = (flag: FeatureFlag) => flag.created_by?.email ?? ""
const typeOf = (flag: FeatureFlag) =>
  (flag.filters.multivariate?.variants ?? []).length > 0 ? "multivariate" : "boolean"

export const FeatureFlagsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [search, setSearch] = useState("")
  const [active, setActive] = useState<"" | "true" | "false">("")
  const [type, setType] = useState<"" | "boolean" | "multivariate">("")
  const [createdBy, setCreatedBy] = useState("")
  const flags = useList<FeatureFlag>(flagsPath(id, search, active))
  const all = flags.data?.results ?? []
  // The API filters by search and status; type and author are filtered here, over its page of 100.
  const shown = all.filter(
    (flag) => (type === "" || typeOf(flag) === type) && (createdBy === "" || creator(flag) === createdBy)
  )
  const creators = [...new Set(all.map(creator).filter((email) => email !== ""))].sort()
  return (
    <Page title="Feature flags">
      <Link to="/project/$id/feature_flags/$flagId" params={{ id, flagId: "new" }} className="button primary">
        New feature flag
      </Link>
      <Filters label="Feature flag filters">
        <Field label="Search" type="search" value={search} onChange={setSearch} placeholder="key or description" />
        <Choice
          label="Status"
          value={active}
          options={{ "": "Any status", true: "Enabled", false: "Disabled" }}
          onChange={setActive}
        />
        <Choice
          label="Type"
          value={type}
          options={{ "": "Any type", boolean: "Boolean", multivariate: "Multivariate" }}
          onChange={setType}
        />
        <Choice
          label="Created by"
          value={createdBy}
          options={{ "": "Anyone", ...Object.fromEntries(creators.map((email) => [email, email])) }}
          onChange={setCreatedBy}
        />
      </Filters>
      <ErrorAlert error={flags.error} />
      <table className="list" aria-label="Feature flags">
        <ListHead columns={["Key", "Status", "Rollout", "Last called", "Created by"]} />
        <tbody>
          {shown.map((flag) => (
            <tr key={flag.id}>
              <td>
                <Link to="/project/$id/feature_flags/$flagId" params={{ id, flagId: String(flag.id) }}>
                  {flag.key}
                </Link>
                {flag.name && <div className="muted">{flag.name}</div>}
              </td>
              <td>{flag.active ? "Enabled" : "Disabled"}</td>
              <td>{rolloutSummary(flag)}</td>
              <td>{flag.last_called_at ? new Date(flag.last_called_at).toLocaleString() : "Never"}</td>
              <td>{flag.created_by?.first_name || flag.created_by?.email}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {flags.data && shown.length === 0 && <p className="muted">No feature flags match.</p>}
    </Page>
  )
}

import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated, type Person } from "../api.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { FieldError, FormError } from "../components/FieldError.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import type { FeatureFlag } from "../flagModel.js"
import { useList } from "../queries.js"
import { queryClient } from "../queryClient.js"
import { personLabel } from "./Persons.js"

// Early access features: made with a stage and a flag (a new one, or an existing one), each one's
// persons who opted in (posthog-js sets `$feature_enrollment/<flag key>: true` on them).

const STAGES = {
  draft: "Draft",
  concept: "Concept",
  alpha: "Alpha",
  beta: "Beta",
  "general-availability": "General availability",
  archived: "Archived"
} as const
type Stage = keyof typeof STAGES

interface Feature {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly stage: Stage
  readonly documentation_url: string
  readonly feature_flag: { readonly id: number; readonly key: string } | null
}

const featuresPath = (id: string) => `/api/projects/${id}/early_access_feature/?limit=100`

/** The persons who opted into the feature released by flag `key`. */
const OptedIn = ({ id, flagKey }: { readonly id: string; readonly flagKey: string }) => {
  const filter = [{ key: `$feature_enrollment/${flagKey}`, value: ["true"], operator: "exact", type: "person" }]
  const persons = useList<Person>(
    `/api/projects/${id}/persons/?limit=100&properties=${encodeURIComponent(JSON.stringify(filter))}`
  )
  const people = persons.data?.results ?? []
  return (
    <>
      <ErrorAlert error={persons.error} />
      {persons.data &&
        (people.length === 0 ? (
          <span className="muted">Nobody yet</span>
        ) : (
          <ul className="plain" aria-label={`Opted into ${flagKey}`}>
            {people.map((person) => (
              <li key={person.uuid}>
                <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: person.distinct_ids[0] ?? "" }}>
                  {personLabel(person)}
                </Link>
              </li>
            ))}
          </ul>
        ))}
    </>
  )
}

const NewFeature = ({ id }: { readonly id: string }) => {
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const [stage, setStage] = useState<Stage>("beta")
  const [flagId, setFlagId] = useState("")
  const [documentation, setDocumentation] = useState("")
  const flags = useQuery({
    queryKey: ["path", `/api/projects/${id}/feature_flags/?limit=100`],
    queryFn: () => api<Paginated<FeatureFlag>>(`/api/projects/${id}/feature_flags/?limit=100`)
  })
  const create = useMutation({
    mutationFn: () =>
      api<Feature>(`/api/projects/${id}/early_access_feature/`, {
        method: "POST",
        body: {
          name,
          description,
          stage,
          documentation_url: documentation,
          ...(flagId === "" ? {} : { feature_flag_id: Number(flagId) })
        }
      }),
    onSuccess: () => {
      setName("")
      setDescription("")
      setDocumentation("")
      void queryClient.invalidateQueries({ queryKey: ["path"] })
    }
  })
  const error = create.error
  return (
    <InlineForm label="New early access feature" className="card stack" onSubmit={() => create.mutate()}>
      <h2>New early access feature</h2>
      <FormError error={error} attrs={["name", "stage", "feature_flag_id", "documentation_url"]} />
      <Field label="Name" value={name} onChange={setName} required />
      <FieldError error={error} attr="name" />
      <Field label="Description" value={description} onChange={setDescription} />
      <Choice label="Stage" value={stage} options={STAGES} onChange={setStage} />
      <Choice
        label="Released by"
        value={flagId}
        options={{
          "": "A new flag named after it",
          ...Object.fromEntries((flags.data?.results ?? []).map((flag) => [String(flag.id), flag.key]))
        }}
        onChange={setFlagId}
      />
      <FieldError error={error} attr="feature_flag_id" />
      <Field label="Documentation URL" type="url" value={documentation} onChange={setDocumentation} />
      <FieldError error={error} attr="documentation_url" />
      <button type="submit" className="primary" disabled={create.isPending}>
        Create feature
      </button>
    </InlineForm>
  )
}

const StageChoice = ({ id, feature }: { readonly id: string; readonly feature: Feature }) => {
  const change = useMutation({
    mutationFn: (stage: Stage) =>
      api(`/api/projects/${id}/early_access_feature/${feature.id}/`, { method: "PATCH", body: { stage } }),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["path"] })
  })
  return (
    <>
      <Choice
        label={`Stage of ${feature.name}`}
        value={feature.stage}
        options={STAGES}
        onChange={(stage) => change.mutate(stage)}
      />
      <ErrorAlert error={change.error} />
    </>
  )
}

export const EarlyAccessPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const features = useList<Feature>(featuresPath(id))
  return (
    <Page title="Early access features">
      <ErrorAlert error={features.error} />
      <table className="list" aria-label="Early access features">
        <ListHead columns={["Feature", "Stage", "Flag", "Opted in"]} />
        <tbody>
          {(features.data?.results ?? []).map((feature) => (
            <tr key={feature.id}>
              <td>
                {feature.name}
                {feature.description && <div className="muted">{feature.description}</div>}
              </td>
              <td>
                <StageChoice id={id} feature={feature} />
              </td>
              <td>
                {feature.feature_flag && (
                  <Link
                    to="/project/$id/feature_flags/$flagId"
                    params={{ id, flagId: String(feature.feature_flag.id) }}
                  >
                    {feature.feature_flag.key}
                  </Link>
                )}
              </td>
              <td>{feature.feature_flag && <OptedIn id={id} flagKey={feature.feature_flag.key} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {features.data?.results.length === 0 && <p className="muted">No early access features yet.</p>}
      <NewFeature id={id} />
    </Page>
  )
}

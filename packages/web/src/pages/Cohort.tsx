import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated } from "../api.js"
import { Choice, Field, InlineForm } from "../components/Field.js"
import { FieldError, FormError } from "../components/FieldError.js"
import { ItemList } from "../components/ItemList.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { BLANK_FILTER } from "../components/PropertyFilterEditor.js"
import { CohortFilterEditor } from "../cohorts/CohortFilterEditor.js"
import { type CohortFilterDraft, fromCohortDraft, toCohortDraft } from "../cohorts/cohortFilters.js"
import { queryClient } from "../queryClient.js"
import { useList } from "../queries.js"
import { type Cohort, cohortsPath } from "./Cohorts.js"

// A cohort of persons by their properties, the cohorts they are in and what they did: groups of
// filters (all of a group's filters hold), any group matching; its members as last calculated.
// Or a static cohort: the persons a CSV upload names, more added by later uploads.

type Groups = ReadonlyArray<ReadonlyArray<CohortFilterDraft>>

interface Stored {
  readonly type?: string
  readonly values?: ReadonlyArray<Stored & Record<string, unknown>>
}

/** The stored `{type: OR, values: [{type: AND, values: [...]}]}` as groups of filters (a bare
 * filter in the OR is a group of one). */
const groupsOf = (properties: unknown): Groups =>
  ((properties as Stored | null)?.values ?? []).map((value) =>
    (value.values === undefined ? [value] : value.values).map(toCohortDraft)
  )

const propertiesOf = (groups: Groups) => ({
  type: "OR",
  values: groups.map((filters) => ({ type: "AND", values: filters.map(fromCohortDraft) }))
})

interface Member {
  readonly id: number
  readonly name: string
  readonly distinct_ids: ReadonlyArray<string>
}

const persons = (n: number) => `${n} ${n === 1 ? "person" : "persons"}`

const Members = ({ id, cohort }: { readonly id: string; readonly cohort: Cohort }) => {
  const members = useQuery({
    // Asked again when a calculation ends.
    queryKey: ["cohort-members", id, cohort.id, cohort.last_calculation],
    queryFn: () => api<Paginated<Member>>(`/api/projects/${id}/cohorts/${cohort.id}/persons/?limit=100`)
  })
  return (
    <section className="card" aria-labelledby="cohort-members">
      <h2 id="cohort-members">Members</h2>
      <ErrorAlert error={members.error} />
      <p role="status">
        {cohort.is_calculating
          ? "Calculating…"
          : members.data
            ? persons(members.data.count ?? members.data.results.length)
            : "Counting…"}
      </p>
      <button type="button" onClick={() => void members.refetch()}>
        Refresh
      </button>
      {cohort.last_calculation && (
        <p className="muted">Calculated {new Date(cohort.last_calculation).toLocaleString()}</p>
      )}
      <table className="list" aria-label="Members">
        <ListHead columns={["Person", "Distinct ids"]} />
        <tbody>
          {(members.data?.results ?? []).map((member) => (
            <tr key={member.id}>
              <td>
                <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: member.distinct_ids[0] ?? "" }}>
                  {member.name}
                </Link>
              </td>
              <td>{member.distinct_ids.join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}

const KINDS = { dynamic: "Dynamic: persons matching filters", static: "Static: persons listed in a CSV" } as const

/** The CSV file to upload, read as text (the API takes the CSV's text as `csv`). */
const CsvInput = ({
  adding,
  onChange
}: {
  readonly adding: boolean
  readonly onChange: (file: File | undefined) => void
}) => (
  <label>
    {adding ? "Add persons from a CSV" : "CSV of persons"}
    <input type="file" accept=".csv,text/csv" onChange={(event) => onChange(event.target.files?.[0])} />
    <span className="muted">
      A column headed distinct_id, email or person_id; without one, distinct ids in the first column.
    </span>
  </label>
)

const CohortEditor = ({ id, cohort }: { readonly id: string; readonly cohort: Cohort | undefined }) => {
  const navigate = useNavigate()
  const [kind, setKind] = useState<keyof typeof KINDS>(cohort?.is_static ? "static" : "dynamic")
  const [file, setFile] = useState<File | undefined>(undefined)
  // Remounts the file input once its file is uploaded, to empty it.
  const [uploads, setUploads] = useState(0)
  const [name, setName] = useState(cohort?.name ?? "")
  const [description, setDescription] = useState(cohort?.description ?? "")
  const [groups, setGroups] = useState<Groups>(cohort ? groupsOf(cohort.filters?.properties) : [[BLANK_FILTER]])
  // Cohorts this one may nest (the API refuses one that would contain itself).
  const cohorts = useList<Cohort>(cohortsPath(id))
  const others = Object.fromEntries(
    (cohorts.data?.results ?? []).filter((c) => c.id !== cohort?.id).map((c) => [String(c.id), c.name])
  )
  const save = useMutation({
    mutationFn: async () => {
      const csv = kind === "static" && file !== undefined ? await file.text() : undefined
      const body = {
        name,
        description,
        ...(kind === "static"
          ? { ...(cohort ? {} : { is_static: true }), ...(csv === undefined ? {} : { csv }) }
          : { filters: { properties: propertiesOf(groups) } })
      }
      return cohort
        ? api<Cohort>(`/api/projects/${id}/cohorts/${cohort.id}/`, { method: "PATCH", body })
        : api<Cohort>(`/api/projects/${id}/cohorts/`, { method: "POST", body })
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(["cohort", id, String(saved.id)], saved)
      void queryClient.invalidateQueries({ queryKey: ["path"] })
      void queryClient.invalidateQueries({ queryKey: ["cohort-members", id, saved.id] })
      setFile(undefined)
      setUploads((n) => n + 1)
      if (!cohort) void navigate({ to: "/project/$id/cohorts/$cohortId", params: { id, cohortId: String(saved.id) } })
    }
  })
  const error = save.error
  return (
    <InlineForm label="Cohort" className="stack" onSubmit={() => save.mutate()}>
      <FormError error={error} attrs={["name", "filters", "csv"]} />
      <Field label="Name" value={name} onChange={setName} required />
      <FieldError error={error} attr="name" />
      <Field label="Description" value={description} onChange={setDescription} />
      {cohort === undefined && <Choice label="Type" value={kind} options={KINDS} onChange={setKind} />}
      {kind === "static" ? (
        <>
          <p className="muted">A static cohort: its persons are listed, not matched.</p>
          <CsvInput key={uploads} adding={cohort !== undefined} onChange={setFile} />
          <FieldError error={error} attr="csv" />
        </>
      ) : (
        <ItemList
          legend="Persons matching any of these groups"
          noun="group"
          items={groups}
          min={1}
          blank={[BLANK_FILTER]}
          onChange={setGroups}
        >
          {(filters, i, setFilters) => (
            <ItemList
              legend={`Group ${i + 1}: all of`}
              noun={`filter to group ${i + 1}`}
              items={filters}
              min={1}
              blank={BLANK_FILTER}
              onChange={setFilters}
            >
              {(filter, j, setFilter) => (
                <CohortFilterEditor
                  label={`Group ${i + 1} filter ${j + 1}`}
                  filter={filter}
                  onChange={setFilter}
                  cohorts={others}
                  error={error}
                  attr={`filters__properties__values__${i}__values__${j}`}
                />
              )}
            </ItemList>
          )}
        </ItemList>
      )}
      <FieldError error={error} attr="filters" exact />
      <button type="submit" className="primary" disabled={save.isPending}>
        {cohort ? "Save" : "Create cohort"}
      </button>
      {save.isSuccess && cohort && <p role="status">Saved.</p>}
    </InlineForm>
  )
}

export const CohortPage = () => {
  const { id, cohortId } = useParams({ from: "/project/$id/cohorts/$cohortId" })
  const isNew = cohortId === "new"
  const cohort = useQuery({
    queryKey: ["cohort", id, cohortId],
    queryFn: () => api<Cohort>(`/api/projects/${id}/cohorts/${cohortId}/`),
    enabled: !isNew,
    // A dynamic cohort's membership is calculated in the background after each change: watched, so
    // that the members are asked again when a calculation ends.
    refetchInterval: ({ state: { data } }) =>
      data === undefined || data.is_static ? false : data.is_calculating ? 500 : 2000
  })
  return (
    <Page title={isNew ? "New cohort" : (cohort.data?.name ?? "Cohort")}>
      <Link to="/project/$id/cohorts" params={{ id }}>
        All cohorts
      </Link>
      <ErrorAlert error={cohort.error} />
      {isNew ? (
        <CohortEditor key="new" id={id} cohort={undefined} />
      ) : (
        cohort.data && (
          <div className="columns">
            <CohortEditor key={cohort.data.id} id={id} cohort={cohort.data} />
            <Members id={id} cohort={cohort.data} />
          </div>
        )
      )}
    </Page>
  )
}

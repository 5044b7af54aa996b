import { useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { Choice, Field } from "../components/Field.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { BUILDERS, type Builder, type BuilderKind } from "../insightBuilders.js"
import { useInsightDraft } from "../insightDraft.js"

// Builds the query node the insights API stores, with its result computed as it changes.

const KIND_LABELS = Object.fromEntries(Object.entries(BUILDERS).map(([kind, { label }]) => [kind, label])) as Record<
  BuilderKind,
  string
>

/** Each kind's draft, kept while another kind is shown. */
type Drafts = { [K in BuilderKind]: (typeof BUILDERS)[K]["initial"] }
const INITIAL_DRAFTS = Object.fromEntries(
  Object.entries(BUILDERS).map(([kind, { initial }]) => [kind, initial])
) as unknown as Drafts

export const InsightBuilderPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const [kind, setKind] = useState<BuilderKind>("trends")
  const [drafts, setDrafts] = useState(INITIAL_DRAFTS)
  const [name, setName] = useState("")
  // One kind at a time: its builder and draft, typed alike.
  const current = BUILDERS[kind] as Builder<unknown>
  const draft = drafts[kind]
  const built = current.query(draft)
  const { result, save } = useInsightDraft(id, built, current.complete(draft))
  // The last result stays while the next computes, but not one of the other kind.
  const shown = result.data?.query?.source?.kind === built.source?.kind ? result.data : undefined
  const Form = current.Form
  return (
    <Page title="New insight" className="page builder">
      <form
        className="stack"
        aria-label="Insight"
        onSubmit={(event) => {
          event.preventDefault()
          save.mutate(name.trim(), {
            onSuccess: (insight) =>
              void navigate({ to: "/project/$id/insights/$shortId", params: { id, shortId: insight.short_id } })
          })
        }}
      >
        <Choice label="Kind" value={kind} options={KIND_LABELS} onChange={setKind} />
        <Form draft={draft} onChange={(next) => setDrafts((all) => ({ ...all, [kind]: next }))} />
        <div className="toolbar">
          <Field label="Name" value={name} onChange={setName} required />
          <button type="submit" className="primary" disabled={save.isPending}>
            Save
          </button>
        </div>
      </form>
      <ErrorAlert error={result.error ?? save.error} />
      <section aria-label="Result" aria-busy={result.isFetching}>
        {shown && <InsightResult insight={shown} />}
      </section>
    </Page>
  )
}

import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useNavigate, useParams } from "@tanstack/react-router"
import { type ReactNode, useState } from "react"
import { api, type Insight, type InsightQuery, type Paginated } from "../api.js"
import { Choice, Field } from "../components/Field.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { BUILDERS, type Builder, type BuilderKind, storedDraft } from "../insightBuilders.js"
import { useInsightDraft } from "../insightDraft.js"
import { insightName } from "../insightKinds.js"
import { insightPath } from "../pages.js"
import { pathQuery } from "../queries.js"
import { queryClient } from "../queryClient.js"

// Builds the query node the insights API stores, with its result computed as it changes: a new
// insight, or a saved one's query edited in place.

const KIND_LABELS = Object.fromEntries(Object.entries(BUILDERS).map(([kind, { label }]) => [kind, label])) as Record<
  BuilderKind,
  string
>

/** Each kind's draft, kept while another kind is shown. */
type Drafts = { [K in BuilderKind]: (typeof BUILDERS)[K]["initial"] }
const INITIAL_DRAFTS = Object.fromEntries(
  Object.entries(BUILDERS).map(([kind, { initial }]) => [kind, initial])
) as unknown as Drafts

type DraftSave = ReturnType<typeof useInsightDraft>["save"]

/** The builder's form for project `id` starting at `start`'s kind and drafts, its live result below;
 * submitted, `onSubmit` gets the query built and the save of the draft computing it. */
const BuilderForm = ({
  id,
  label,
  start,
  onSubmit,
  actions
}: {
  readonly id: string
  readonly label: string
  readonly start: { readonly kind: BuilderKind; readonly drafts: Drafts }
  readonly onSubmit: (built: InsightQuery, saveDraft: DraftSave) => void
  /** The save and cancel controls, given the draft's save (pending while it saves). */
  readonly actions: (saveDraft: DraftSave) => ReactNode
}) => {
  const [kind, setKind] = useState(start.kind)
  const [drafts, setDrafts] = useState(start.drafts)
  // One kind at a time: its builder and draft, typed alike.
  const current = BUILDERS[kind] as Builder<unknown>
  const draft = drafts[kind]
  const built = current.query(draft)
  const { result, save } = useInsightDraft(id, built, current.complete(draft))
  // The last result stays while the next computes, but not one of the other kind.
  const shown = result.data?.query?.source?.kind === built.source?.kind ? result.data : undefined
  const Form = current.Form
  return (
    <>
      <form
        className="stack"
        aria-label={label}
        onSubmit={(event) => {
          event.preventDefault()
          onSubmit(built, save)
        }}
      >
        <Choice label="Kind" value={kind} options={KIND_LABELS} onChange={setKind} />
        <Form draft={draft} onChange={(next) => setDrafts((all) => ({ ...all, [kind]: next }))} />
        <div className="toolbar">{actions(save)}</div>
      </form>
      <ErrorAlert error={result.error ?? save.error} />
      <section aria-label="Result" aria-busy={result.isFetching}>
        {shown && <InsightResult insight={shown} />}
      </section>
    </>
  )
}

export const InsightBuilderPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const [name, setName] = useState("")
  return (
    <Page title="New insight" className="page builder">
      <BuilderForm
        id={id}
        label="Insight"
        start={{ kind: "trends", drafts: INITIAL_DRAFTS }}
        onSubmit={(_built, save) =>
          // The draft computing the result becomes the saved insight.
          save.mutate(name.trim(), {
            onSuccess: (insight) =>
              void navigate({ to: "/project/$id/insights/$shortId", params: { id, shortId: insight.short_id } })
          })
        }
        actions={(save) => (
          <>
            <Field label="Name" value={name} onChange={setName} required />
            <button type="submit" className="primary" disabled={save.isPending}>
              Save
            </button>
          </>
        )}
      />
    </Page>
  )
}

/** A saved insight's query in the builder: Save replaces the insight's query (same insight, same
 * short id, its activity log records the change), Cancel leaves it as it was. */
export const InsightEditPage = () => {
  const { id, shortId } = useParams({ from: "/project/$id/insights/$shortId/edit" })
  const navigate = useNavigate()
  const stored = pathQuery<Paginated<Insight>>(insightPath(id, shortId))
  const insight = useQuery({ ...stored, select: (list) => list.results[0] ?? null })
  const back = () => void navigate({ to: "/project/$id/insights/$shortId", params: { id, shortId } })
  const save = useMutation({
    mutationFn: (query: InsightQuery) =>
      api<Insight>(`/api/projects/${id}/insights/${insight.data!.id}/`, { method: "PATCH", body: { query } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: stored.queryKey })
      back()
    }
  })
  const data = insight.data
  const start = data ? storedDraft(data.query) : undefined
  return (
    <Page title={data ? `Edit ${insightName(data)}` : "Edit insight"} className="page builder">
      <ErrorAlert error={insight.error ?? save.error} />
      {data === null && <p>No insight has the id {shortId}.</p>}
      {data && !start && (
        <p>
          The builder does not edit this kind of insight.{" "}
          <Link to="/project/$id/insights/$shortId" params={{ id, shortId }}>
            Back to the insight
          </Link>
        </p>
      )}
      {data && start && (
        <>
          {!start.exact && (
            <p role="note" className="muted">
              This query has parts the builder does not show; saving replaces the query with the one below.
            </p>
          )}
          <BuilderForm
            id={id}
            label="Insight"
            start={{ kind: start.kind, drafts: { ...INITIAL_DRAFTS, [start.kind]: start.draft } }}
            onSubmit={(query) => save.mutate(query)}
            actions={() => (
              <>
                <button type="submit" className="primary" disabled={save.isPending}>
                  Save
                </button>
                <button type="button" onClick={back}>
                  Cancel
                </button>
              </>
            )}
          />
        </>
      )}
    </Page>
  )
}

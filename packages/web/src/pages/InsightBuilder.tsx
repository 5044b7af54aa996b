import { useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { Choice, Field } from "../components/Field.js"
import { FunnelForm, funnelComplete, funnelsQuery, INITIAL_FUNNEL } from "../components/FunnelForm.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { INITIAL_TRENDS, TrendsForm, trendsComplete, trendsQuery } from "../components/TrendsForm.js"
import { useInsightDraft } from "../insightDraft.js"

// Builds the query node the insights API stores, with its result computed as it changes.

const KINDS = { trends: "Trends", funnel: "Funnel" } as const

export const InsightBuilderPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const [kind, setKind] = useState<keyof typeof KINDS>("trends")
  const [trends, setTrends] = useState(INITIAL_TRENDS)
  const [funnel, setFunnel] = useState(INITIAL_FUNNEL)
  const [name, setName] = useState("")
  const built = kind === "trends" ? trendsQuery(trends) : funnelsQuery(funnel)
  const { result, save } = useInsightDraft(
    id,
    built,
    kind === "trends" ? trendsComplete(trends) : funnelComplete(funnel)
  )
  // The last result stays while the next computes, but not one of the other kind.
  const shown = result.data?.query?.source?.kind === built.source?.kind ? result.data : undefined
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
        <Choice label="Kind" value={kind} options={KINDS} onChange={setKind} />
        {kind === "trends" ? (
          <TrendsForm draft={trends} onChange={setTrends} />
        ) : (
          <FunnelForm draft={funnel} onChange={setFunnel} />
        )}
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

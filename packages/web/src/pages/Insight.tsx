import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { api, type Insight, type Paginated, withQuery } from "../api.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { insightName, kindOf } from "../insightKinds.js"
import { queryClient } from "../queryClient.js"

/** The insight `shortId` with its result: the cached one, computed first if missing or stale. */
const insightPath = (id: string, shortId: string, refresh: "blocking" | "force_blocking") =>
  withQuery(`/api/projects/${id}/insights/`, { short_id: shortId, refresh })

export const InsightPage = () => {
  const { id, shortId } = useParams({ from: "/project/$id/insights/$shortId" })
  const key = ["insight", id, shortId]
  const insight = useQuery({
    queryKey: key,
    queryFn: async () => (await api<Paginated<Insight>>(insightPath(id, shortId, "blocking"))).results[0] ?? null
  })
  const refresh = useMutation({
    mutationFn: async () =>
      (await api<Paginated<Insight>>(insightPath(id, shortId, "force_blocking"))).results[0] ?? null,
    onSuccess: (fresh) => queryClient.setQueryData(key, fresh)
  })
  const data = insight.data
  if (data === null) return <Page title="Insight not found">{<p>No insight has the id {shortId}.</p>}</Page>
  return (
    <Page title={data ? insightName(data) : "Insight"} className="page insight">
      <ErrorAlert error={insight.error ?? refresh.error} />
      {data && (
        <>
          <p className="muted">
            {kindOf(data) ?? data.query?.kind}
            {data.tags.length > 0 && ` · ${data.tags.join(", ")}`}
            {data.last_refresh && ` · computed ${new Date(data.last_refresh).toLocaleString()}`}{" "}
            <button type="button" className="link" disabled={refresh.isPending} onClick={() => refresh.mutate()}>
              {refresh.isPending ? "Refreshing…" : "Refresh"}
            </button>
          </p>
          {data.description && <p className="description">{data.description}</p>}
          <InsightResult insight={data} />
          {data.zedql && (
            <section aria-label="ZedQL">
              <div className="section-head">
                <h2>ZedQL</h2>
                <Link to="/project/$id/sql" params={{ id }} search={{ query: data.zedql } as never}>
                  Open in SQL editor
                </Link>
              </div>
              <pre className="zedql">{data.zedql}</pre>
            </section>
          )}
        </>
      )}
    </Page>
  )
}

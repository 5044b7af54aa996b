import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { api, type Insight, type Paginated } from "../api.js"
import {
  ago,
  InsightActivity,
  InsightCopyDelete,
  InsightDetails,
  InsightSharing
} from "../components/InsightActions.js"
import { InsightResult } from "../components/InsightResult.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { insightName, kindOf } from "../insightKinds.js"
import { insightPath } from "../pages.js"
import { pathQuery } from "../queries.js"
import { queryClient } from "../queryClient.js"

export const InsightPage = () => {
  const { id, shortId } = useParams({ from: "/project/$id/insights/$shortId" })
  // Under its path, as the route's loader and main.ts start it.
  const first = pathQuery<Paginated<Insight>>(insightPath(id, shortId))
  const insight = useQuery({ ...first, select: (list) => list.results[0] ?? null })
  const refresh = useMutation({
    mutationFn: () => api<Paginated<Insight>>(insightPath(id, shortId, "force_blocking")),
    onSuccess: (fresh) => queryClient.setQueryData(first.queryKey, fresh)
  })
  const favourite = useMutation({
    mutationFn: (insight: Insight) =>
      api<Insight>(`/api/projects/${id}/insights/${insight.id}/`, {
        method: "PATCH",
        body: { favorited: !insight.favorited }
      }),
    onSuccess: ({ favorited }) =>
      queryClient.setQueryData(
        first.queryKey,
        (list: Paginated<Insight> | undefined) =>
          list && { ...list, results: list.results.map((insight) => ({ ...insight, favorited })) }
      )
  })
  const data = insight.data
  if (data === null)
    return (
      <Page title="Insight not found">
        <p>No insight has the id {shortId}.</p>
      </Page>
    )
  return (
    <Page title={data ? insightName(data) : "Insight"} className="page insight">
      <ErrorAlert error={insight.error ?? refresh.error ?? favourite.error} />
      {data && (
        <>
          <p className="muted">
            {kindOf(data) ?? data.query?.kind}
            {data.tags.length > 0 && ` · ${data.tags.join(", ")}`}
            {data.last_refresh && (
              <>
                {" · computed "}
                <time dateTime={data.last_refresh} title={new Date(data.last_refresh).toLocaleString()}>
                  {ago(data.last_refresh)}
                </time>
              </>
            )}{" "}
            <button type="button" className="link" disabled={refresh.isPending} onClick={() => refresh.mutate()}>
              {refresh.isPending ? "Refreshing…" : "Refresh"}
            </button>{" "}
            {/* The builder edits every kind but SQL (without its forms in this page's code). */}
            {kindOf(data) !== undefined && kindOf(data) !== "SQL" && (
              <>
                <Link to="/project/$id/insights/$shortId/edit" params={{ id, shortId }}>
                  Edit
                </Link>{" "}
              </>
            )}
            <button
              type="button"
              className="link"
              aria-pressed={data.favorited}
              disabled={favourite.isPending}
              onClick={() => favourite.mutate(data)}
            >
              {data.favorited ? "★" : "☆"} Favourite
            </button>
          </p>
          {data.description && <p className="description">{data.description}</p>}
          <InsightResult insight={data} />
          <details className="insight-manage">
            <summary>Edit, share, history</summary>
            <InsightDetails
              key={data.last_modified_at}
              project={id}
              insight={data}
              onSaved={() => void queryClient.invalidateQueries({ queryKey: first.queryKey })}
            />
            <InsightCopyDelete project={id} insight={data} />
            <InsightSharing project={id} insight={data} />
            <InsightActivity project={id} insight={data} />
          </details>
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

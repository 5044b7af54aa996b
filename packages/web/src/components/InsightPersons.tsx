import { useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { api } from "../api.js"
import { ErrorAlert } from "./Page.js"

// The persons behind one point of an insight (a trend's bucket, a funnel step's converted or
// dropped-off persons), asked of the query API as an `ActorsQuery` over an `InsightActorsQuery`,
// with the recordings of the sessions their matching events happened in (`includeRecordings`).

/** A point of an insight: the `InsightActorsQuery` fields naming it, and how to call it. */
export interface InsightPoint {
  readonly title: string
  readonly fields: Record<string, unknown>
}

/** A recorded session of the person's matching events (`matched_recordings`), the first match first. */
interface Recording {
  readonly session_id: string
}

interface Actors {
  readonly results: ReadonlyArray<
    readonly [{ readonly display_name: string; readonly distinct_id: string }, string, ReadonlyArray<Recording>]
  >
  readonly hasMore?: boolean
}

export const InsightPersons = ({
  source,
  point,
  onClose
}: {
  readonly source: unknown
  readonly point: InsightPoint
  readonly onClose: () => void
}) => {
  const { id } = useParams({ from: "/project/$id" })
  const query = {
    kind: "ActorsQuery",
    source: { kind: "InsightActorsQuery", source, ...point.fields, includeRecordings: true },
    select: ["person_display_name -- Person", "created_at"],
    orderBy: ["created_at ASC"]
  }
  const actors = useQuery({
    queryKey: ["insight-actors", id, query],
    queryFn: () => api<Actors>(`/api/projects/${id}/query/`, { method: "POST", body: { query } })
  })
  return (
    <section className="insight-persons" aria-label={`Persons: ${point.title}`} aria-busy={actors.isFetching}>
      <div className="section-head">
        <h2>Persons: {point.title}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorAlert error={actors.error} />
      {actors.data && (
        <>
          <ul className="person-list">
            {actors.data.results.map(([person, , recordings]) => (
              <li key={person.distinct_id}>
                <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: person.distinct_id }}>
                  {person.display_name}
                </Link>
                {recordings[0] !== undefined && (
                  <>
                    {" · "}
                    <Link
                      to="/project/$id/replay/$sessionId"
                      params={{ id, sessionId: recordings[0].session_id }}
                      className="watch-recording"
                    >
                      Watch recording<span className="visually-hidden"> of {person.display_name}</span>
                    </Link>
                  </>
                )}
              </li>
            ))}
          </ul>
          {actors.data.results.length === 0 && <p className="muted">Nobody.</p>}
          {actors.data.hasMore && <p className="muted">The first {actors.data.results.length} shown.</p>}
        </>
      )}
    </section>
  )
}

import { Link, useParams } from "@tanstack/react-router"
import type { ZedEvent } from "../api.js"

/** Events, newest first, each expandable to its full JSON; its person and session are links. */
export const EventList = ({ events }: { readonly events: ReadonlyArray<ZedEvent> }) => {
  const { id } = useParams({ from: "/project/$id" })
  if (events.length === 0) return <p className="muted">No events.</p>
  return (
    <ul className="events" aria-label="Events">
      {events.map((event) => {
        const session = event.properties["$session_id"]
        return (
          <li key={event.id}>
            <details>
              <summary>
                <span className="event-name">{event.event}</span>
                <time dateTime={event.timestamp}>{new Date(event.timestamp).toLocaleString()}</time>
                <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: event.distinct_id }}>
                  {event.distinct_id}
                </Link>
                {typeof session === "string" && (
                  <a href={`../replay/${encodeURIComponent(session)}`} className="muted">
                    session {session.slice(0, 8)}…
                  </a>
                )}
              </summary>
              <pre>{JSON.stringify(event, null, 2)}</pre>
            </details>
          </li>
        )
      })}
    </ul>
  )
}

import { Link, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { recordingUrl, type ZedEvent } from "../api.js"

/** An id short enough to scan in a list: whole when short, else its first and last characters (a UUIDv7's
 * first ones are its start time, shared by sessions begun in the same minute; its last ones are random). */
const shortId = (id: string) => (id.length <= 13 ? id : `${id.slice(0, 4)}…${id.slice(-6)}`)

const EventRow = ({ event }: { readonly event: ZedEvent }) => {
  const { id } = useParams({ from: "/project/$id" })
  const [open, setOpen] = useState(false)
  const session = event.properties["$session_id"]
  return (
    <li>
      <div className="event-line">
        <button type="button" className="event-name" aria-expanded={open} onClick={() => setOpen(!open)}>
          {event.event}
        </button>
        <time dateTime={event.timestamp}>{new Date(event.timestamp).toLocaleString()}</time>
        <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: event.distinct_id }}>
          {event.distinct_id}
        </Link>
        {typeof session === "string" && (
          <a href={recordingUrl(id, session)} className="muted" title={`Recording of session ${session}`}>
            Session {shortId(session)}
          </a>
        )}
      </div>
      {open && <pre>{JSON.stringify(event, null, 2)}</pre>}
    </li>
  )
}

/** Events, newest first, each expandable to its full JSON; its person and session are links. */
export const EventList = ({ events }: { readonly events: ReadonlyArray<ZedEvent> }) =>
  events.length === 0 ? (
    <p className="muted">No events.</p>
  ) : (
    <ul className="events" aria-label="Events">
      {events.map((event) => (
        <EventRow key={event.id} event={event} />
      ))}
    </ul>
  )

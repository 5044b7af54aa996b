import { useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated, withQuery, type ZedEvent } from "../api.js"
import { EventList } from "../components/EventList.js"

/** `key=value` as an exact event-property filter; anything else filters nothing. */
const propertyFilter = (text: string) => {
  const at = text.indexOf("=")
  if (at <= 0) return undefined
  return JSON.stringify([
    { key: text.slice(0, at).trim(), value: text.slice(at + 1).trim(), operator: "exact", type: "event" }
  ])
}

export const EventsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [event, setEvent] = useState("")
  const [property, setProperty] = useState("")
  const [person, setPerson] = useState("")
  const [live, setLive] = useState(true)
  const path = withQuery(`/api/projects/${id}/events/`, {
    limit: 100,
    event,
    distinct_id: person,
    properties: propertyFilter(property)
  })
  const events = useQuery({
    queryKey: ["events", path],
    queryFn: () => api<Paginated<ZedEvent>>(path),
    refetchInterval: live ? 3000 : false,
    placeholderData: (previous) => previous
  })
  return (
    <section className="page" aria-labelledby="events-title">
      <h1 id="events-title">Activity</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Event filters">
        <label>
          Event
          <input type="search" value={event} onChange={(e) => setEvent(e.target.value)} placeholder="$pageview" />
        </label>
        <label>
          Property
          <input value={property} onChange={(e) => setProperty(e.target.value)} placeholder="$browser=Chrome" />
        </label>
        <label>
          Person (distinct id)
          <input value={person} onChange={(e) => setPerson(e.target.value)} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live
        </label>
      </form>
      {events.error && (
        <p role="alert" className="error">
          {events.error.message}
        </p>
      )}
      {events.data && <EventList events={events.data.results} />}
    </section>
  )
}

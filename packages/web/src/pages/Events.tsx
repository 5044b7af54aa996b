import { useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { useState } from "react"
import type { Paginated, ZedEvent } from "../api.js"
import { eventsPath, pathQuery } from "../queries.js"
import { EventList } from "../components/EventList.js"

export const EventsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [event, setEvent] = useState("")
  const [property, setProperty] = useState("")
  const [person, setPerson] = useState("")
  const [live, setLive] = useState(true)
  const events = useQuery({
    ...pathQuery<Paginated<ZedEvent>>(eventsPath(id, event, property, person)),
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

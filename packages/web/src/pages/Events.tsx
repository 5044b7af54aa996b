import { useParams } from "@tanstack/react-router"
import { useState } from "react"
import type { ZedEvent } from "../api.js"
import { eventsPath } from "../pages.js"
import { useList } from "../queries.js"
import { EventList } from "../components/EventList.js"
import { Field, Filters } from "../components/Field.js"
import { ErrorAlert, Page } from "../components/Page.js"

export const EventsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const [event, setEvent] = useState("")
  const [property, setProperty] = useState("")
  const [person, setPerson] = useState("")
  const [live, setLive] = useState(true)
  const events = useList<ZedEvent>(eventsPath(id, event, property, person), live ? 3000 : false)
  return (
    <Page title="Activity">
      <Filters label="Event filters">
        <Field label="Event" type="search" value={event} onChange={setEvent} placeholder="$pageview" />
        <Field label="Property" value={property} onChange={setProperty} placeholder="$browser=Chrome" />
        <Field label="Person (distinct id)" value={person} onChange={setPerson} />
        <label className="inline">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live
        </label>
      </Filters>
      <ErrorAlert error={events.error} />
      {events.data && <EventList events={events.data.results} />}
    </Page>
  )
}

import { useMutation, useQuery } from "@tanstack/react-query"
import { useNavigate, useParams } from "@tanstack/react-router"
import { useState } from "react"
import { api, type Paginated, type Person, recordingUrl, withQuery, type ZedEvent } from "../api.js"
import { cellText } from "../components/ResultTable.js"
import { EventList } from "../components/EventList.js"
import { personLabel } from "./Persons.js"

interface Recording {
  readonly id: string
  readonly start_time: string
  readonly recording_duration: number
}

export const PersonPage = () => {
  const { id, distinctId } = useParams({ from: "/project/$id/person/$distinctId" })
  const navigate = useNavigate()
  const [withEvents, setWithEvents] = useState(false)
  const person = useQuery({
    queryKey: ["person", id, distinctId],
    queryFn: async () =>
      (await api<Paginated<Person>>(withQuery(`/api/projects/${id}/persons/`, { distinct_id: distinctId })))
        .results[0] ?? null
  })
  const found = person.data ?? undefined
  const events = useQuery({
    queryKey: ["personEvents", id, found?.uuid],
    enabled: found !== undefined,
    queryFn: () =>
      api<Paginated<ZedEvent>>(withQuery(`/api/projects/${id}/events/`, { person_id: found!.uuid, limit: 100 }))
  })
  const recordings = useQuery({
    queryKey: ["personRecordings", id, found?.uuid],
    enabled: found !== undefined,
    queryFn: () =>
      api<Paginated<Recording>>(withQuery(`/api/projects/${id}/session_recordings/`, { person_uuid: found!.uuid }))
  })
  const remove = useMutation({
    mutationFn: () =>
      api(
        withQuery(`/api/projects/${id}/persons/${found!.uuid}/`, { delete_events: withEvents ? "true" : undefined }),
        { method: "DELETE" }
      ),
    onSuccess: () => navigate({ to: "/project/$id/persons", params: { id } })
  })

  if (person.isPending) return <p role="status">Loading…</p>
  if (!found) return <p role="alert">No person with distinct id {distinctId}.</p>
  return (
    <section className="page" aria-labelledby="person-title">
      <h1 id="person-title">{personLabel(found)}</h1>
      <div className="columns">
        <div>
          <h2>Properties</h2>
          <table className="list">
            <tbody>
              {Object.entries(found.properties).map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{cellText(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Distinct ids</h2>
          <ul>
            {found.distinct_ids.map((distinct) => (
              <li key={distinct}>{distinct}</li>
            ))}
          </ul>
          <h2>Recordings</h2>
          <ul>
            {(recordings.data?.results ?? []).map((recording) => (
              <li key={recording.id}>
                <a href={recordingUrl(id, recording.id)}>
                  {new Date(recording.start_time).toLocaleString()} ({Math.round(recording.recording_duration)} s)
                </a>
              </li>
            ))}
            {recordings.data?.results.length === 0 && <li className="muted">None.</li>}
          </ul>
          <h2>Delete</h2>
          <label className="inline">
            <input type="checkbox" checked={withEvents} onChange={(e) => setWithEvents(e.target.checked)} /> Also delete
            their events
          </label>
          <button
            type="button"
            className="danger"
            onClick={() => confirm(`Delete ${personLabel(found)}?`) && remove.mutate()}
          >
            Delete person
          </button>
        </div>
        <div>
          <h2>Events</h2>
          {events.data && <EventList events={events.data.results} />}
        </div>
      </div>
    </section>
  )
}

import "../replay/replay.css"
import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { api, type Paginated, withQuery } from "../api.js"
import { ListHead } from "../components/ListHead.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { useList } from "../queries.js"
import { queryClient } from "../queryClient.js"
import type { Recording } from "../replay/snapshots.js"

// Session recordings: the list with the filters the recordings API takes, each recording's watched
// state, and playlists beside it (saved filters with their counts, and collections of pinned
// recordings).

export interface Playlist {
  readonly short_id: string
  readonly name: string | null
  readonly derived_name: string | null
  readonly pinned: boolean
  readonly type: "collection" | "filters"
  readonly filters: Record<string, unknown> | null
  readonly recordings_counts: {
    readonly collection: { readonly count: number | null; readonly watched_count: number }
    readonly saved_filters: { readonly count: number | null; readonly has_more: boolean | null }
  }
}

export const playlistsPath = (id: string) =>
  withQuery(`/api/projects/${id}/session_recording_playlists/`, { limit: 100 })

/** What the filter form holds, as a person types it. */
export interface RecordingFilters {
  readonly date_from: string
  readonly min_duration: string
  readonly person: string
  readonly event: string
  readonly url: string
}

const NO_FILTERS: RecordingFilters = { date_from: "-30d", min_duration: "", person: "", event: "", url: "" }

/** The recordings API's filters (as a playlist saves them) for the form's values. */
export const apiFilters = (form: RecordingFilters): Record<string, unknown> => {
  const properties = [
    ...(form.person.trim() === ""
      ? []
      : [{ key: "email", value: form.person.trim(), operator: "icontains", type: "person" }]),
    ...(form.url.trim() === ""
      ? []
      : [{ key: "$current_url", value: form.url.trim(), operator: "icontains", type: "event" }])
  ]
  return {
    ...(form.date_from === "" ? {} : { date_from: form.date_from }),
    ...(form.min_duration === ""
      ? {}
      : { duration: [{ type: "recording", key: "duration", operator: "gt", value: Number(form.min_duration) }] }),
    ...(form.event.trim() === "" ? {} : { events: [{ id: form.event.trim(), type: "events" }] }),
    ...(properties.length === 0 ? {} : { properties })
  }
}

/** The form's values back from saved filters (what the form cannot show is left out). */
const formOf = (filters: Record<string, unknown> | null): RecordingFilters => {
  const properties = (filters?.["properties"] ?? []) as ReadonlyArray<{ key: string; value: unknown }>
  const duration = (filters?.["duration"] ?? []) as ReadonlyArray<{ value: unknown }>
  const events = (filters?.["events"] ?? []) as ReadonlyArray<{ id: unknown }>
  return {
    date_from: typeof filters?.["date_from"] === "string" ? filters["date_from"] : "",
    min_duration: duration[0] ? String(duration[0].value) : "",
    person: String(properties.find((p) => p.key === "email")?.value ?? ""),
    event: events[0] ? String(events[0].id ?? "") : "",
    url: String(properties.find((p) => p.key === "$current_url")?.value ?? "")
  }
}

/** A name for saved filters, from what they select. */
const describe = (form: RecordingFilters) =>
  [
    form.event.trim() && `with ${form.event.trim()}`,
    form.min_duration && `longer than ${form.min_duration} s`,
    form.person.trim() && `by ${form.person.trim()}`,
    form.url.trim() && `on ${form.url.trim()}`,
    form.date_from && `since ${form.date_from}`
  ]
    .filter(Boolean)
    .join(", ") || "All recordings"

export const recordingsPath = (id: string, filters: Record<string, unknown>) =>
  withQuery(
    `/api/projects/${id}/session_recordings/`,
    Object.fromEntries(
      Object.entries({ limit: 50, ...filters }).map(([key, value]) => [
        key,
        typeof value === "object" ? JSON.stringify(value) : (value as string | number)
      ])
    )
  )

const duration = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.round(seconds) % 60).padStart(2, "0")}`

export const ReplayPage = () => {
  const { id } = useParams({ from: "/project/$id/replay" })
  const [form, setForm] = useState<RecordingFilters>(NO_FILTERS)
  const [applied, setApplied] = useState<RecordingFilters>(NO_FILTERS)
  const [collection, setCollection] = useState<Playlist | undefined>()
  const list = useList<Recording & { person?: { properties?: Record<string, unknown> } }>(
    recordingsPath(id, apiFilters(applied))
  )
  const pinned = useQuery({
    queryKey: ["playlistRecordings", id, collection?.short_id],
    enabled: collection !== undefined,
    queryFn: () =>
      api<{ results: ReadonlyArray<Recording> }>(
        `/api/projects/${id}/session_recording_playlists/${collection!.short_id}/recordings/`
      )
  })
  const playlists = useQuery({
    queryKey: ["path", playlistsPath(id)],
    queryFn: () => api<Paginated<Playlist>>(playlistsPath(id))
  })
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ["path", playlistsPath(id)] })
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api(`/api/projects/${id}/session_recording_playlists/`, { method: "POST", body }),
    onSuccess: refresh
  })
  const togglePin = useMutation({
    mutationFn: (playlist: Playlist) =>
      api(`/api/projects/${id}/session_recording_playlists/${playlist.short_id}/`, {
        method: "PATCH",
        body: { pinned: !playlist.pinned }
      }),
    onSuccess: refresh
  })

  const apply = (event: FormEvent) => {
    event.preventDefault()
    setCollection(undefined)
    setApplied(form)
  }
  const set = (key: keyof RecordingFilters) => (event: { target: { value: string } }) =>
    setForm({ ...form, [key]: event.target.value })
  const recordings = collection ? (pinned.data?.results ?? []) : (list.data?.results ?? [])
  const sorted = [...(playlists.data?.results ?? [])].sort((a, b) => Number(b.pinned) - Number(a.pinned))

  return (
    <Page title="Session replay">
      <div className="replay-layout">
        <div>
          <form className="toolbar filters" onSubmit={apply} aria-label="Recording filters">
            <label>
              Date{" "}
              <select value={form.date_from} onChange={set("date_from")}>
                <option value="-24h">Last 24 hours</option>
                <option value="-7d">Last 7 days</option>
                <option value="-30d">Last 30 days</option>
                <option value="">All time</option>
              </select>
            </label>
            <label>
              Longer than (s) <input type="number" min={0} value={form.min_duration} onChange={set("min_duration")} />
            </label>
            <label>
              Person email <input type="search" value={form.person} onChange={set("person")} />
            </label>
            <label>
              Has event <input type="text" value={form.event} onChange={set("event")} placeholder="$pageview" />
            </label>
            <label>
              URL contains <input type="text" value={form.url} onChange={set("url")} />
            </label>
            <button type="submit">Apply</button>
            <button
              type="button"
              onClick={() =>
                create.mutate({ type: "filters", name: "", derived_name: describe(form), filters: apiFilters(form) })
              }
            >
              Save as playlist
            </button>
          </form>
          <ErrorAlert error={list.error ?? pinned.error ?? create.error} />
          {collection && (
            <p className="toolbar">
              Collection <strong>{collection.name || collection.derived_name}</strong>
              <button type="button" onClick={() => setCollection(undefined)}>
                Show all recordings
              </button>
            </p>
          )}
          {/* Scrolls sideways on a phone rather than squeezing its columns. */}
          <div className="table-scroll" role="region" aria-label="Recordings list" tabIndex={0}>
            <table className="list" aria-label="Recordings">
              <ListHead
                columns={["Started", "Person", "Duration", "Active", "Clicks", "Errors", "Start URL", "Watched"]}
              />
              <tbody>
                {recordings.map((recording) => (
                  <tr key={recording.id} className={recording.viewed ? "watched" : undefined}>
                    <td>
                      <Link to="/project/$id/replay/$sessionId" params={{ id, sessionId: recording.id }}>
                        {new Date(recording.start_time).toLocaleString()}
                      </Link>
                    </td>
                    <td>{String(recording.person?.properties?.["email"] ?? recording.distinct_id)}</td>
                    <td>{duration(recording.recording_duration)}</td>
                    <td>{duration(recording.active_seconds)}</td>
                    <td>{recording.click_count}</td>
                    <td>{recording.console_error_count}</td>
                    <td className="truncate">{recording.start_url}</td>
                    <td>{recording.viewed ? "Watched" : "New"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data && recordings.length === 0 && <p className="muted">No recordings match.</p>}
        </div>
        <aside aria-label="Playlists" className="playlists">
          <h2>Playlists</h2>
          <form
            className="toolbar"
            onSubmit={(event) => {
              event.preventDefault()
              const name = new FormData(event.currentTarget).get("name")
              create.mutate({ type: "collection", name })
              event.currentTarget.reset()
            }}
          >
            <label>
              New collection <input name="name" required />
            </label>
            <button type="submit">Create</button>
          </form>
          <ul className="playlist-list">
            {sorted.map((playlist) => {
              const counts =
                playlist.type === "filters"
                  ? `${playlist.recordings_counts.saved_filters.count ?? 0}${playlist.recordings_counts.saved_filters.has_more ? "+" : ""} recordings`
                  : `${playlist.recordings_counts.collection.count ?? 0} pinned, ${playlist.recordings_counts.collection.watched_count} watched`
              const name = playlist.name || playlist.derived_name || "Untitled"
              return (
                <li key={playlist.short_id}>
                  <button
                    type="button"
                    className="link"
                    onClick={() => {
                      if (playlist.type === "filters") {
                        const next = formOf(playlist.filters)
                        setForm(next)
                        setApplied(next)
                        setCollection(undefined)
                      } else setCollection(playlist)
                    }}
                  >
                    {name}
                  </button>{" "}
                  <span className="muted">{counts}</span>{" "}
                  <button
                    type="button"
                    aria-pressed={playlist.pinned}
                    aria-label={`${playlist.pinned ? "Unpin" : "Pin"} ${name}`}
                    onClick={() => togglePin.mutate(playlist)}
                  >
                    {playlist.pinned ? "★" : "☆"}
                  </button>
                </li>
              )
            })}
          </ul>
        </aside>
      </div>
    </Page>
  )
}

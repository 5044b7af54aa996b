import "../replay/replay.css"
import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, useParams } from "@tanstack/react-router"
import { lazy, Suspense, useMemo, useRef, useState } from "react"
import { api, type Paginated, withQuery, type ZedEvent } from "../api.js"
import { ErrorAlert } from "../components/Page.js"
import type { ConsoleEntry, Marker, PlayerControls } from "../replay/Player.js"
import { type Recording, sourcesOf } from "../replay/snapshots.js"
import { type Playlist, playlistsPath } from "./Replay.js"

// One recording: the player (rrweb, its own chunk, loaded once the page shows), the session's
// analytics events and console log beside it, each seeking the player, and the person's other
// recordings.

const Player = lazy(() => import("../replay/Player.js").then((module) => ({ default: module.Player })))

const clock = (ms: number) => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

export const recordingPath = (id: string, session: string) =>
  `/api/projects/${id}/session_recordings/${encodeURIComponent(session)}/`

export const RecordingPage = () => {
  const { id, sessionId } = useParams({ from: "/project/$id/replay/$sessionId" })
  const controls = useRef<PlayerControls | undefined>(undefined)
  const [consoleLines, setConsole] = useState<ReadonlyArray<ConsoleEntry>>([])
  const [tab, setTab] = useState<"events" | "console">("events")
  const [collection, setCollection] = useState("")
  const recording = useQuery({
    queryKey: ["path", recordingPath(id, sessionId)],
    queryFn: () => api<Recording>(recordingPath(id, sessionId))
  })
  const sources = useQuery({
    queryKey: ["recordingSources", id, sessionId],
    queryFn: () => sourcesOf(id, sessionId),
    staleTime: Number.POSITIVE_INFINITY
  })
  const events = useQuery({
    queryKey: ["sessionEvents", id, sessionId],
    queryFn: () =>
      api<Paginated<ZedEvent>>(
        withQuery(`/api/projects/${id}/events/`, {
          limit: 500,
          properties: JSON.stringify([{ key: "$session_id", value: sessionId, operator: "exact", type: "event" }])
        })
      )
  })
  const personUuid = recording.data?.person?.uuid
  const others = useQuery({
    queryKey: ["personRecordings", id, personUuid],
    enabled: personUuid !== undefined,
    queryFn: () =>
      api<Paginated<Recording>>(withQuery(`/api/projects/${id}/session_recordings/`, { person_uuid: personUuid }))
  })
  const collections = useQuery({
    queryKey: ["path", playlistsPath(id)],
    queryFn: () => api<Paginated<Playlist>>(playlistsPath(id))
  })
  const pin = useMutation({
    mutationFn: (shortId: string) =>
      api(`/api/projects/${id}/session_recording_playlists/${shortId}/recordings/${encodeURIComponent(sessionId)}/`, {
        method: "POST"
      })
  })

  const start = sources.data?.[0] ? Date.parse(sources.data[0].start_timestamp) : undefined
  const timeline = useMemo<ReadonlyArray<Marker & { readonly event: ZedEvent }>>(
    () =>
      start === undefined
        ? []
        : [...(events.data?.results ?? [])]
            .map((event) => ({
              offset: Date.parse(event.timestamp) - start,
              kind: "event" as const,
              label: `Event ${event.event}`,
              event
            }))
            .sort((a, b) => a.offset - b.offset),
    [events.data, start]
  )

  if (recording.isPending) return <p role="status">Loading…</p>
  if (recording.error) return <ErrorAlert error={recording.error} />
  const found = recording.data
  const duration = start === undefined ? found.recording_duration * 1000 : Date.parse(found.end_time) - start
  const personName = String(found.person?.properties?.["email"] ?? found.distinct_id)
  const pinnable = (collections.data?.results ?? []).filter((playlist) => playlist.type === "collection")

  return (
    <section className="page recording" aria-labelledby="recording-title">
      <h1 id="recording-title">Recording of {personName}</h1>
      <p className="muted">
        {new Date(found.start_time).toLocaleString()} · {clock(found.recording_duration * 1000)} ·{" "}
        {found.active_seconds} s active · {found.click_count} clicks · {found.console_error_count} console errors ·{" "}
        <Link to="/project/$id/person/$distinctId" params={{ id, distinctId: found.distinct_id }}>
          {personName}
        </Link>
      </p>
      <div className="recording-layout">
        <div>
          {sources.error && <ErrorAlert error={sources.error} />}
          {sources.data && sources.data.length === 0 && <p className="muted">This recording has no snapshots.</p>}
          {sources.data && sources.data.length > 0 && (
            <Suspense fallback={<p role="status">Loading the player…</p>}>
              <Player
                project={id}
                session={sessionId}
                sources={sources.data}
                duration={duration}
                events={timeline}
                onConsole={setConsole}
                onReady={(next) => (controls.current = next)}
              />
            </Suspense>
          )}
          <div className="toolbar">
            <label className="inline">
              Collection{" "}
              <select value={collection} onChange={(event) => setCollection(event.target.value)}>
                <option value="">Choose…</option>
                {pinnable.map((playlist) => (
                  <option key={playlist.short_id} value={playlist.short_id}>
                    {playlist.name || playlist.derived_name || playlist.short_id}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" disabled={collection === ""} onClick={() => pin.mutate(collection)}>
              Pin to collection
            </button>
            {pin.isSuccess && <span role="status">Pinned.</span>}
            <ErrorAlert error={pin.error} />
          </div>
        </div>
        <aside aria-label="Session activity" className="recording-side">
          <div role="tablist" className="tabs">
            <button type="button" role="tab" aria-selected={tab === "events"} onClick={() => setTab("events")}>
              Events ({timeline.length})
            </button>
            <button type="button" role="tab" aria-selected={tab === "console"} onClick={() => setTab("console")}>
              Console ({consoleLines.length})
            </button>
          </div>
          <ol className="activity" aria-label={tab === "events" ? "Session events" : "Console log"}>
            {tab === "events" &&
              timeline.map((mark) => (
                <li key={mark.event.id}>
                  <button type="button" onClick={() => controls.current?.seek(Math.max(0, mark.offset))}>
                    <span className="muted">{clock(mark.offset)}</span> {mark.event.event}
                  </button>
                </li>
              ))}
            {tab === "console" &&
              consoleLines.map((line, i) => (
                <li key={i} className={`console-${line.level}`}>
                  <button type="button" onClick={() => controls.current?.seek(Math.max(0, line.offset))}>
                    <span className="muted">{clock(line.offset)}</span> <strong>{line.level}</strong> {line.message}
                  </button>
                </li>
              ))}
          </ol>
          <h2>Other recordings of {personName}</h2>
          <ul>
            {(others.data?.results ?? [])
              .filter((other) => other.id !== sessionId)
              .map((other) => (
                <li key={other.id}>
                  <Link to="/project/$id/replay/$sessionId" params={{ id, sessionId: other.id }}>
                    {new Date(other.start_time).toLocaleString()} ({clock(other.recording_duration * 1000)})
                  </Link>
                </li>
              ))}
            {others.data && others.data.results.every((other) => other.id === sessionId) && (
              <li className="muted">None.</li>
            )}
          </ul>
        </aside>
      </div>
    </section>
  )
}

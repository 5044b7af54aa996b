import { useEffect, useRef, useState } from "react"
import { consoleLine, isClick, type RrwebEvent, type Source } from "./snapshots.js"
import { type Held, ReplayStream } from "./stream.js"
import "./replay.css"

// The session's player: rrweb's replayer fed blob by blob (stream.ts), its controls, and a timeline
// marking the session's analytics events, clicks and console errors. Its own chunk, with rrweb.

export interface Marker {
  readonly offset: number
  readonly kind: "event" | "click" | "error"
  readonly label: string
}

export interface ConsoleEntry {
  readonly offset: number
  readonly level: string
  readonly message: string
}

export interface PlayerControls {
  readonly seek: (offset: number) => void
}

/** `m:ss` of a number of milliseconds. */
export const clock = (ms: number) => {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

const SPEEDS = [1, 2, 4, 8] as const

export const Player = ({
  project,
  session,
  sources,
  duration,
  events,
  onConsole,
  onReady,
  onTime
}: {
  readonly project: string
  readonly session: string
  readonly sources: ReadonlyArray<Source>
  /** The recording's length in ms, known before its blobs are. */
  readonly duration: number
  /** The session's analytics events, as timeline markers. */
  readonly events: ReadonlyArray<Marker>
  readonly onConsole: (entries: ReadonlyArray<ConsoleEntry>) => void
  readonly onReady: (controls: PlayerControls) => void
  readonly onTime?: (offset: number) => void
}) => {
  const frame = useRef<HTMLDivElement>(null)
  const stage = useRef<HTMLDivElement>(null)
  const root = useRef<HTMLDivElement>(null)
  const stream = useRef<ReplayStream | undefined>(undefined)
  const [time, setTime] = useState(0)
  const [playing, setPlaying] = useState(false)
  const [loaded, setLoaded] = useState(0)
  const [started, setStarted] = useState(false)
  const [error, setError] = useState<Error | undefined>()
  const [speed, setSpeed] = useState(1)
  const [skip, setSkip] = useState(true)
  const [size, setSize] = useState({ width: 1024, height: 768 })
  const [scale, setScale] = useState(1)
  const [marks, setMarks] = useState<ReadonlyArray<Marker>>([])
  const [held, setHeld] = useState<Held>({ events: 0, bytes: 0, blobs: [0, 0] })

  useEffect(() => {
    if (sources.length === 0 || root.current === null) return
    const console: Array<ConsoleEntry> = []
    const found: Array<Marker> = []
    const playerStream = new ReplayStream({
      project,
      session,
      sources,
      root: root.current,
      onEvents: (blob: ReadonlyArray<RrwebEvent>) => {
        for (const event of blob) {
          const offset = event.timestamp - playerStream.start
          const line = consoleLine(event)
          if (line) {
            console.push({ offset, ...line })
            if (line.level === "error") found.push({ offset, kind: "error", label: `Console error: ${line.message}` })
          } else if (isClick(event)) found.push({ offset, kind: "click", label: "Click" })
        }
        onConsole([...console])
        setMarks([...found])
      },
      onState: (state) => {
        setPlaying(state.playing)
        setLoaded(state.loaded)
        setHeld(state.held)
        setStarted(playerStream.started)
      },
      onError: setError,
      onResize: setSize
    })
    stream.current = playerStream
    void playerStream.fill(0)
    onReady({ seek: (offset) => void playerStream.seek(offset).then(() => setTime(offset)) })
    const ticker = setInterval(() => {
      const now = playerStream.time()
      setTime(now)
      onTime?.(now)
    }, 200)
    return () => {
      clearInterval(ticker)
      playerStream.close()
    }
  }, [project, session, sources])

  // The recorded page drawn at its own size, scaled to fit the stage.
  useEffect(() => {
    const element = stage.current
    if (!element) return
    const fit = () => setScale(Math.min(element.clientWidth / size.width, element.clientHeight / size.height, 1))
    fit()
    const observer = new ResizeObserver(fit)
    observer.observe(element)
    return () => observer.disconnect()
  }, [size])

  // One drag fires both events: the second, at once and to the same place, is not a seek again.
  const lastSeek = useRef({ offset: -1, at: 0 })
  const seekTo = (offset: number) => {
    if (lastSeek.current.offset === offset && performance.now() - lastSeek.current.at < 100) return
    lastSeek.current = { offset, at: performance.now() }
    setTime(offset)
    void stream.current?.seek(offset)
  }
  const all = [...events, ...marks].sort((a, b) => a.offset - b.offset)
  const at = (offset: number) => `${Math.min(100, Math.max(0, (offset / Math.max(duration, 1)) * 100))}%`

  return (
    <div
      className="player"
      ref={frame}
      // What the player holds in memory, for tests and diagnostics.
      data-held-events={held.events}
      data-held-bytes={held.bytes}
      data-held-blobs={held.blobs.join("-")}
    >
      <div className="player-stage" ref={stage}>
        <div
          ref={root}
          className="player-root"
          style={{ width: size.width, height: size.height, transform: `scale(${scale})` }}
        />
        {!started && !error && (
          <p role="status" className="player-status">
            Loading the recording…
          </p>
        )}
      </div>
      {error && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <div className="toolbar player-controls">
        <button
          type="button"
          disabled={!started}
          onClick={() => (playing ? stream.current?.pause() : stream.current?.play())}
        >
          {playing ? "Pause" : "Play"}
        </button>
        <input
          type="range"
          aria-label="Position"
          min={0}
          max={Math.max(duration, 1)}
          step={100}
          value={Math.min(time, duration)}
          aria-valuetext={`${clock(time)} of ${clock(duration)}`}
          // `input` events seek (whoever set the value); React's onChange, which a script's setting of
          // the value does not fire, is the same seek.
          onInput={(event) => seekTo(Number(event.currentTarget.value))}
          onChange={(event) => seekTo(Number(event.target.value))}
        />
        <span className="muted" aria-label="Time">
          {clock(time)} / {clock(duration)}
        </span>
        <label className="inline">
          Speed{" "}
          <select
            value={speed}
            onChange={(event) => {
              const next = Number(event.target.value)
              setSpeed(next)
              stream.current?.setSpeed(next)
            }}
          >
            {SPEEDS.map((option) => (
              <option key={option} value={option}>
                {option}×
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={skip}
            onChange={(event) => {
              setSkip(event.target.checked)
              stream.current?.setSkipInactive(event.target.checked)
            }}
          />{" "}
          Skip inactivity
        </label>
        <button type="button" onClick={() => void frame.current?.requestFullscreen()}>
          Full screen
        </button>
      </div>
      <div className="timeline" aria-label="Timeline" role="group">
        <div className="timeline-loaded" style={{ width: at(loaded) }} />
        <div className="timeline-head" style={{ left: at(time) }} />
        {all.map((mark, i) => (
          <button
            key={i}
            type="button"
            className={`mark mark-${mark.kind}`}
            style={{ left: at(mark.offset) }}
            title={`${mark.label} at ${clock(mark.offset)}`}
            aria-label={`${mark.label} at ${clock(mark.offset)}`}
            onClick={() => void stream.current?.seek(mark.offset).then(() => setTime(mark.offset))}
          />
        ))}
      </div>
    </div>
  )
}

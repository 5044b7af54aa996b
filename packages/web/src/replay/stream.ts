import { Replayer } from "rrweb"
import "rrweb/dist/style.css"
import { fetchBlob, type RrwebEvent, type Source } from "./snapshots.js"

// rrweb's player fed progressively: it starts on the recording's first blob, and the next blob is
// fetched only once playback is within LOOKAHEAD_MS of the end of what is loaded (or a seek goes
// past it). A long recording is thus fetched as it is watched, never all at once up front.

/** How far ahead of the playhead (recording time) blobs are fetched. */
const LOOKAHEAD_MS = 20_000

export interface StreamOptions {
  readonly project: string
  readonly session: string
  readonly sources: ReadonlyArray<Source>
  readonly root: HTMLElement
  /** Each loaded blob's events, for the timeline and the console. */
  readonly onEvents: (events: ReadonlyArray<RrwebEvent>) => void
  readonly onState: (state: { playing: boolean; loaded: number }) => void
  readonly onError: (error: Error) => void
  /** The recorded viewport's size, when the player learns it. */
  readonly onResize: (size: { width: number; height: number }) => void
}

export class ReplayStream {
  private replayer: Replayer | undefined
  private next = 0
  private loading: Promise<void> | undefined
  private playing = false
  private closed = false
  private speed = 1
  private skipInactive = true
  /** Events of blobs fetched before the player could start (no full snapshot yet). */
  private pending: Array<RrwebEvent> = []
  private readonly timer: ReturnType<typeof setInterval>
  /** Just after the first full snapshot: rrweb applies at a seek only events strictly before the
   * seek's time, and draws nothing without that snapshot, so seeks go no earlier. */
  private firstFull = 0
  readonly start: number

  constructor(private readonly options: StreamOptions) {
    this.start = Date.parse(options.sources[0]!.start_timestamp)
    this.timer = setInterval(() => void this.fill(this.time()), 500)
  }

  /** The playhead, in ms from the recording's start. */
  time() {
    return this.replayer?.getCurrentTime() ?? 0
  }

  /** The end of what is loaded, in ms from the start. */
  private loadedUntil() {
    return this.next === 0 ? 0 : Date.parse(this.options.sources[this.next - 1]!.end_timestamp) - this.start
  }

  /** Fetches blobs until the one holding `until + LOOKAHEAD_MS` is loaded. */
  fill(until: number): Promise<void> {
    if (this.closed || this.next >= this.options.sources.length) return Promise.resolve()
    if (this.replayer !== undefined && this.loadedUntil() > until + LOOKAHEAD_MS) return Promise.resolve()
    if (this.loading) return this.loading.then(() => this.fill(until))
    this.loading = this.loadOne()
      .catch((error: Error) => this.options.onError(error))
      .finally(() => (this.loading = undefined))
    return this.loading.then(() => this.fill(until))
  }

  private async loadOne() {
    const source = this.options.sources[this.next]!
    const events = await fetchBlob(this.options.project, this.options.session, source)
    if (this.closed) return
    this.next++
    this.options.onEvents(events)
    if (this.replayer === undefined) {
      this.pending.push(...events)
      // rrweb needs a Meta and a full snapshot before it can draw anything.
      const full = this.pending.find((event) => event.type === 2)
      if (full !== undefined && this.pending.length >= 2) {
        this.firstFull = full.timestamp - this.start + 1
        this.begin()
      }
    } else {
      const wasFinished = this.playing && this.replayer.service.state.matches("paused")
      for (const event of events) this.replayer.addEvent(event as never)
      if (wasFinished) this.replayer.play(this.replayer.getCurrentTime())
    }
    this.report()
  }

  private begin() {
    const replayer = new Replayer(this.pending as never, {
      root: this.options.root,
      speed: this.speed,
      skipInactive: this.skipInactive,
      showWarning: false,
      mouseTail: false,
      triggerFocus: false,
      UNSAFE_replayCanvas: false
    })
    this.pending = []
    this.replayer = replayer
    replayer.iframe.title = "The recorded page"
    replayer.on("resize", (size: unknown) => this.options.onResize(size as { width: number; height: number }))
    replayer.on("finish", () => {
      // The end of what is loaded, not of the recording: go on once more is loaded.
      if (this.next < this.options.sources.length)
        void this.fill(this.time()).then(() => this.playing && this.replayer?.play(this.time()))
      else {
        this.playing = false
        this.report()
      }
    })
    this.play(0)
  }

  private report() {
    this.options.onState({ playing: this.playing, loaded: this.loadedUntil() })
  }

  play(from = this.time()) {
    this.playing = true
    this.replayer?.play(from)
    this.report()
  }

  pause() {
    this.playing = false
    this.replayer?.pause()
    this.report()
  }

  /** Moves the playhead to `offset` ms, fetching what it needs first; keeps playing if it was. */
  async seek(to: number) {
    await this.fill(to)
    const offset = Math.max(to, this.firstFull)
    if (this.replayer === undefined) return
    if (this.playing) this.replayer.play(offset)
    else this.replayer.pause(offset)
    this.report()
  }

  setSpeed(speed: number) {
    this.speed = speed
    this.replayer?.setConfig({ speed })
  }

  setSkipInactive(skipInactive: boolean) {
    this.skipInactive = skipInactive
    this.replayer?.setConfig({ skipInactive })
  }

  get isPlaying() {
    return this.playing
  }

  get started() {
    return this.replayer !== undefined
  }

  close() {
    this.closed = true
    clearInterval(this.timer)
    this.replayer?.destroy()
  }
}

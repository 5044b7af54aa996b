import { Replayer } from "rrweb"
import "rrweb/dist/style.css"
import { fetchBlob, type RrwebEvent, type Source } from "./snapshots.js"

// rrweb's player fed progressively: it starts on the recording's first blob, and the next blob is
// fetched only once playback is within LOOKAHEAD_MS of the end of what is loaded (or a seek goes
// past it). A long recording is thus fetched as it is watched, never all at once up front.
//
// Memory stays bounded as it plays: rrweb needs only the latest full snapshot at or before the
// playhead and what follows it, so once playback passes a later full snapshot the blobs before it are
// dropped (and the player rebuilt on what is left). A seek back before what is held fetches again
// from the blob whose full snapshot precedes the seek's time.

/** How far ahead of the playhead (recording time) blobs are fetched. */
const LOOKAHEAD_MS = 20_000

const FULL_SNAPSHOT = 2
const META = 4

/** What the player holds: for the tests and the page's diagnostics. */
export interface Held {
  readonly events: number
  readonly bytes: number
  /** The first and last blob held. */
  readonly blobs: readonly [number, number]
}

export interface StreamOptions {
  readonly project: string
  readonly session: string
  readonly sources: ReadonlyArray<Source>
  readonly root: HTMLElement
  /** Each blob's events the first time it is loaded, for the timeline and the console. */
  readonly onEvents: (events: ReadonlyArray<RrwebEvent>) => void
  readonly onState: (state: { playing: boolean; loaded: number; held: Held }) => void
  readonly onError: (error: Error) => void
  /** The recorded viewport's size, when the player learns it. */
  readonly onResize: (size: { width: number; height: number }) => void
}

interface Chunk {
  readonly index: number
  readonly events: ReadonlyArray<RrwebEvent>
  readonly bytes: number
}

/** Where in `events` the player can start: the Meta before the full snapshot (or it), else -1. */
const startOf = (events: ReadonlyArray<RrwebEvent>, full: number) =>
  full > 0 && events[full - 1]!.type === META ? full - 1 : full

export class ReplayStream {
  private replayer: Replayer | undefined
  /** Consecutive blobs held, from the one holding the player's first event. */
  private held: Array<Chunk> = []
  /** The next blob to fetch. */
  private next = 0
  /** Blobs already reported through onEvents (a blob fetched again is not reported twice). */
  private reported = 0
  private loading: Promise<void> | undefined
  private playing = false
  private closed = false
  private speed = 1
  private skipInactive = true
  private readonly timer: ReturnType<typeof setInterval>
  /** Just after the first full snapshot held: rrweb applies at a seek only events strictly before
   * the seek's time, and draws nothing without that snapshot, so seeks go no earlier. */
  private firstFull = 0
  /** The player's times count from its first event: this far (ms) from the recording's start. */
  private shift = 0
  readonly start: number

  constructor(private readonly options: StreamOptions) {
    this.start = Date.parse(options.sources[0]!.start_timestamp)
    this.timer = setInterval(() => {
      void this.fill(this.time())
      this.release()
    }, 500)
  }

  /** The playhead, in ms from the recording's start. */
  time() {
    return this.replayer === undefined ? 0 : this.replayer.getCurrentTime() + this.shift
  }

  /** The end of what is loaded, in ms from the start. */
  private loadedUntil() {
    return this.next === 0 ? 0 : Date.parse(this.options.sources[this.next - 1]!.end_timestamp) - this.start
  }

  /** Fetches blobs until the one holding `until + LOOKAHEAD_MS` is loaded. */
  fill(until: number): Promise<void> {
    if (this.closed || this.next >= this.options.sources.length) return Promise.resolve()
    if (this.replayer !== undefined && this.loadedUntil() > until + LOOKAHEAD_MS) return Promise.resolve()
    // Loading under way may be enough: asked again once it is done.
    if (this.loading) return this.loading.then(() => this.fill(until))
    return this.serially(() => this.loadOne()).then(() => this.fill(until))
  }

  /** Runs `work` after whatever loading is under way, one at a time. */
  private serially(work: () => Promise<void>): Promise<void> {
    if (this.loading) return this.loading.then(() => this.serially(work))
    this.loading = work()
      .catch((error: Error) => this.options.onError(error))
      .finally(() => (this.loading = undefined))
    return this.loading
  }

  private async fetch(index: number): Promise<Chunk> {
    const { events, bytes } = await fetchBlob(this.options.project, this.options.session, this.options.sources[index]!)
    if (index >= this.reported) {
      this.reported = index + 1
      this.options.onEvents(events)
    }
    return { index, events, bytes }
  }

  private async loadOne() {
    if (this.next >= this.options.sources.length) return
    const blob = await this.fetch(this.next)
    if (this.closed) return
    this.next++
    this.held.push(blob)
    if (this.replayer === undefined) {
      // rrweb needs a Meta and a full snapshot before it can draw anything.
      const events = this.held.flatMap((b) => b.events)
      if (events.some((event) => event.type === FULL_SNAPSHOT) && events.length >= 2) this.begin(0)
    } else {
      const wasFinished = this.playing && this.replayer.service.state.matches("paused")
      for (const event of blob.events) this.replayer.addEvent(event as never)
      if (wasFinished) this.replayer.play(this.replayer.getCurrentTime())
    }
    this.report()
  }

  /** A player on the held events, at `at` (ms from the start), playing if the stream is. */
  private begin(at: number) {
    this.replayer?.destroy()
    const events = this.held.flatMap((b) => b.events)
    const full = events.find((event) => event.type === FULL_SNAPSHOT)!
    this.firstFull = full.timestamp - this.start + 1
    this.shift = events[0]!.timestamp - this.start
    const replayer = new Replayer(events as never, {
      root: this.options.root,
      speed: this.speed,
      skipInactive: this.skipInactive,
      showWarning: false,
      mouseTail: false,
      triggerFocus: false,
      UNSAFE_replayCanvas: false
    })
    this.replayer = replayer
    replayer.iframe.title = "The recorded page"
    replayer.on("resize", (size: unknown) => this.options.onResize(size as { width: number; height: number }))
    replayer.on("finish", () => {
      if (this.replayer !== replayer) return
      // The end of what is loaded, not of the recording: go on once more is loaded.
      if (this.next < this.options.sources.length)
        void this.fill(this.time()).then(() => this.playing && this.replayer?.play(this.time() - this.shift))
      else {
        this.playing = false
        this.report()
      }
    })
    if (this.held[0]!.index === 0 && at === 0) this.play(0)
    else this.position(Math.max(at, this.firstFull))
  }

  /** The playhead at `at` (ms from the start), playing or paused as the stream is. */
  private position(at: number) {
    const offset = Math.max(0, at - this.shift)
    if (this.playing) this.replayer?.play(offset)
    else this.replayer?.pause(offset)
  }

  /**
   * Drops the blobs before the one holding the latest full snapshot at or before the playhead, and
   * that blob's events before it; the player is rebuilt on the rest, where it was.
   */
  private release() {
    if (this.replayer === undefined || this.loading !== undefined || this.closed) return
    const now = this.start + this.time()
    let keep = -1
    let from = -1
    this.held.forEach((blob, i) =>
      blob.events.forEach((event, j) => {
        if (event.type === FULL_SNAPSHOT && event.timestamp <= now) [keep, from] = [i, j]
      })
    )
    const start = keep < 0 ? 0 : startOf(this.held[keep]!.events, from)
    if (keep <= 0 && start === 0) return
    const at = this.time()
    const first = this.held[keep]!
    this.held = [
      {
        ...first,
        events: first.events.slice(start),
        bytes: Math.round((first.bytes * (first.events.length - start)) / first.events.length)
      },
      ...this.held.slice(keep + 1)
    ]
    this.begin(at)
    this.report()
  }

  private report() {
    const held = this.held
    this.options.onState({
      playing: this.playing,
      loaded: this.loadedUntil(),
      held: {
        events: held.reduce((sum, b) => sum + b.events.length, 0),
        bytes: held.reduce((sum, b) => sum + b.bytes, 0),
        blobs: [held[0]?.index ?? 0, held.at(-1)?.index ?? 0]
      }
    })
  }

  play(from = this.time()) {
    this.playing = true
    this.position(from)
    this.report()
  }

  pause() {
    this.playing = false
    this.replayer?.pause()
    this.report()
  }

  /** Moves the playhead to `to` ms, fetching what it needs first; keeps playing if it was. */
  async seek(to: number) {
    if (this.replayer !== undefined && to < this.firstFull - 1 && this.held[0]!.index > 0)
      await this.serially(() => this.reload(to))
    await this.fill(to)
    if (this.replayer === undefined) return
    this.position(Math.max(to, this.firstFull))
    this.report()
  }

  /** Fetches again from the blob whose full snapshot is the latest at or before `to`, and plays there. */
  private async reload(to: number) {
    const at = this.start + to
    const sources = this.options.sources
    let index = sources.findIndex((s) => Date.parse(s.end_timestamp) >= at)
    if (index < 0) index = sources.length - 1
    const blobs: Array<Chunk> = []
    for (; index >= 0; index--) {
      const blob = await this.fetch(index)
      if (this.closed) return
      blobs.unshift(blob)
      if (blob.events.some((event) => event.type === FULL_SNAPSHOT && event.timestamp <= at)) break
    }
    this.held = blobs
    this.next = blobs.at(-1)!.index + 1
    this.begin(to)
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

// The parts of rrweb's event format that recording metadata reads (rrweb's numbering).

export const EventType = { FullSnapshot: 2, IncrementalSnapshot: 3, Meta: 4, Plugin: 6 } as const

export const Source = {
  Mutation: 0,
  MouseMove: 1,
  MouseInteraction: 2,
  Scroll: 3,
  ViewportResize: 4,
  Input: 5,
  TouchMove: 6,
  MediaInteraction: 7,
  Drag: 12
} as const

/** MouseInteraction kinds counted as clicks: Click, DblClick, TouchEnd. */
export const CLICKS: ReadonlySet<number> = new Set([2, 4, 9])

/** Sources that mean a person is using the page (PostHog's player segments on the same ones). */
export const ACTIVE_SOURCES: ReadonlySet<number> = new Set([
  Source.MouseMove,
  Source.MouseInteraction,
  Source.Scroll,
  Source.ViewportResize,
  Source.Input,
  Source.TouchMove,
  Source.MediaInteraction,
  Source.Drag
])

export const MOUSE_SOURCES: ReadonlySet<number> = new Set([Source.MouseMove, Source.MouseInteraction, Source.TouchMove])

/** The console plugin posthog-js records `console.*` calls with. */
export const CONSOLE_PLUGIN = "rrweb/console@1"

/** An rrweb event as far as Zed looks into it; everything else is kept as sent. */
export interface RrwebEvent {
  readonly type: number
  readonly timestamp: number
  readonly data?: unknown
  readonly [key: string]: unknown
}

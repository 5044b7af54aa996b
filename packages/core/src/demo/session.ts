import { flagHash } from "../flags/hash.js"
import {
  type Clickable,
  type Flag,
  NODE_LIB_VERSION,
  SERVER_DELAY_MS,
  type Source,
  WEB_LIB_VERSION
} from "./catalog.js"
import type { Company, Device, User } from "./population.js"
import type { Chance } from "./random.js"

/** An event as an SDK sends it to `/batch/`. */
export interface DemoEvent {
  readonly event: string
  readonly distinct_id: string
  /** ISO 8601, UTC, milliseconds. */
  readonly timestamp: string
  /** UUIDv7 of the timestamp. */
  readonly uuid: string
  readonly properties: Record<string, unknown>
}

/**
 * Collects one session's events on its own clock. It closes for good at the first event past the
 * deadline (the end of the span) or the limit (the events left to generate), so callers change the
 * world only for events that were written.
 */
export class SessionWriter {
  readonly events: Array<DemoEvent> = []
  readonly times: Array<number> = []
  private open = true

  constructor(
    readonly chance: Chance,
    public now: number,
    private readonly deadline: number,
    private readonly limit: number
  ) {}

  /** Lets `ms` pass (at least a millisecond, so events of a session never share a moment). */
  wait(ms: number): void {
    this.now += Math.max(1, Math.round(ms))
  }

  emit(event: string, distinctId: string, properties: Record<string, unknown>): boolean {
    if (!this.open || this.now >= this.deadline || this.events.length >= this.limit) {
      this.open = false
      return false
    }
    this.events.push({
      event,
      distinct_id: distinctId,
      timestamp: new Date(this.now).toISOString(),
      uuid: this.chance.uuidv7(this.now),
      properties
    })
    this.times.push(this.now)
    return true
  }
}

interface Page {
  readonly host: string
  readonly path: string
  readonly utm: Readonly<Record<string, string>> | undefined
  readonly since: number
}

/** Whether a flag is on for a distinct id, and its variant: PostHog's bucketing, so it is stable per id. */
export const flagResponse = (flag: Flag, distinctId: string): boolean | string => {
  if (flagHash(flag.key, distinctId) >= flag.rollout) return false
  if (flag.variants === undefined) return true
  const bucket = flagHash(flag.key, distinctId, "variant") * flag.variants.reduce((sum, [, weight]) => sum + weight, 0)
  let reached = 0
  for (const [variant, weight] of flag.variants) if (bucket < (reached += weight)) return variant
  return flag.variants[flag.variants.length - 1]![0]
}

const elementsChain = ({ classes, href, tag, text }: Clickable, position: number): string =>
  `${tag}.${classes.join(".")}:attr__class="${classes.join(" ")}"${href === undefined ? "" : `attr__href="${href}"href="${href}"`}` +
  `nth-child="${position}"nth-of-type="1"text="${text}";div.container:attr__class="container"nth-child="2"nth-of-type="1";` +
  `body:nth-child="2"nth-of-type="1"`

/** One browser session as posthog-js reports it: the properties it attaches, and its calls. */
export class Visit {
  private readonly sessionId: string
  private windowId: string
  private page: Page | undefined
  private groups: Record<string, string> | undefined
  private base: Record<string, unknown> | undefined
  private readonly flagsCalled = new Set<string>()

  constructor(
    readonly writer: SessionWriter,
    private readonly device: Device,
    private readonly source: Source,
    public distinctId: string
  ) {
    this.sessionId = writer.chance.uuidv7(writer.now)
    this.windowId = writer.chance.uuidv7(writer.now)
  }

  /** A new tab: posthog-js gives it its own window id within the session. */
  newWindow(): void {
    this.windowId = this.writer.chance.uuidv7(this.writer.now)
    this.base = undefined
  }

  /** What posthog-js attaches to every event on the current page; built once per page, window and group. */
  private context(): Record<string, unknown> {
    if (this.base !== undefined) return this.base
    const page = this.page!
    const search = page.utm === undefined ? "" : `?${new URLSearchParams(page.utm).toString()}`
    return (this.base = {
      ...this.device.properties,
      $current_url: `https://${page.host}${page.path}${search}`,
      $host: page.host,
      $pathname: page.path,
      $referrer: this.source.referrer,
      $referring_domain: this.source.domain,
      ...page.utm,
      $device_id: this.device.anonId,
      $session_id: this.sessionId,
      $window_id: this.windowId,
      $lib: "web",
      $lib_version: WEB_LIB_VERSION,
      ...(this.groups === undefined ? {} : { $groups: this.groups })
    })
  }

  private web(extra: Record<string, unknown>): Record<string, unknown> {
    return { ...this.context(), ...extra }
  }

  pageview(host: string, path: string, utm?: Readonly<Record<string, string>>): boolean {
    this.page = { host, path, utm, since: this.writer.now }
    this.base = undefined
    return this.writer.emit("$pageview", this.distinctId, this.web({}))
  }

  pageleave(): boolean {
    const page = this.page!
    return this.writer.emit(
      "$pageleave",
      this.distinctId,
      this.web({
        $prev_pageview_pathname: page.path,
        $prev_pageview_duration: Math.round((this.writer.now - page.since) / 100) / 10,
        $prev_pageview_max_scroll_percentage: Math.round(this.writer.chance.number() * 100) / 100
      })
    )
  }

  click(element: Clickable): boolean {
    return this.writer.emit(
      "$autocapture",
      this.distinctId,
      this.web({
        $event_type: "click",
        $ce_version: 1,
        $el_text: element.text,
        $elements_chain: elementsChain(element, this.writer.chance.int(1, 6))
      })
    )
  }

  capture(event: string, properties: Record<string, unknown>): boolean {
    return this.writer.emit(event, this.distinctId, this.web(properties))
  }

  /** An event the product's backend sends (posthog-node) about what this user just did. */
  server(event: string, properties: Record<string, unknown>): boolean {
    this.writer.wait(SERVER_DELAY_MS)
    return this.writer.emit(event, this.distinctId, {
      ...properties,
      ...(this.groups === undefined ? {} : { $groups: this.groups }),
      $lib: "posthog-node",
      $lib_version: NODE_LIB_VERSION
    })
  }

  /** The flag's value for this visitor, reported once per session as posthog-js does. */
  flag(flag: Flag): boolean | string {
    const response = flagResponse(flag, this.distinctId)
    if (!this.flagsCalled.has(flag.key)) {
      this.flagsCalled.add(flag.key)
      this.capture("$feature_flag_called", { $feature_flag: flag.key, $feature_flag_response: response })
    }
    return response
  }

  /** `posthog.identify(user.id, $set, $set_once)`: later events are the user's. */
  identify(user: User, set: Record<string, unknown>, setOnce: Record<string, unknown> | undefined): boolean {
    const written = this.writer.emit(
      "$identify",
      user.id,
      this.web({
        $anon_distinct_id: this.distinctId,
        $set: set,
        ...(setOnce === undefined ? {} : { $set_once: setOnce })
      })
    )
    if (written) this.distinctId = user.id
    return written
  }

  /** `posthog.group("company", …)`: later events name the company; its properties are sent when new or changed. */
  group(company: Company, changed?: Record<string, unknown>): boolean {
    this.groups = { company: company.key }
    this.base = undefined
    if (company.identified && changed === undefined) return true
    const set = changed ?? {
      name: company.name,
      industry: company.industry,
      employees: company.employees,
      plan: company.plan,
      seats: company.seats,
      created_at: new Date(company.createdAt).toISOString()
    }
    const written = this.capture("$groupidentify", { $group_type: "company", $group_key: company.key, $group_set: set })
    if (written) company.identified = true
    return written
  }
}

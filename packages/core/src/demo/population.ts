import {
  COMPANY_WORDS,
  DEVICES,
  EXISTING_PLANS,
  FIRST_NAMES,
  INDUSTRIES,
  LAST_NAMES,
  LOCALES,
  type Plan,
  SOURCES,
  type Source
} from "./catalog.js"
import type { Chance } from "./random.js"

// Who uses the product: anonymous visitors (one browser each), the users some of them become, and
// the companies users belong to. Kept in memory for the whole run: they are few next to events.

const DAY_MS = 86_400_000

/** A browser: posthog-js's anonymous id for it (also `$device_id`) and the properties it sends. */
export interface Device {
  readonly anonId: string
  readonly properties: Readonly<Record<string, unknown>>
}

export interface Company {
  readonly key: string
  readonly name: string
  readonly domain: string
  readonly industry: string
  readonly employees: number
  readonly createdAt: number
  plan: Plan
  seats: number
  /** Whether a `$groupidentify` for it is in the data yet. */
  identified: boolean
  documents: number
  projects: number
}

interface Returning {
  /** Chance of coming back, before recency. */
  readonly engagement: number
  lastSeen: number
  /** Until when a session of theirs runs: no one has two at once. */
  busyUntil: number
}

export interface User extends Returning {
  readonly id: string
  readonly email: string
  readonly name: string
  readonly company: Company
  plan: Plan
  /** Browsers they are logged in on; a session elsewhere starts with a log-in. */
  readonly devices: Array<Device>
}

export interface Visitor extends Returning {
  readonly device: Device
  readonly source: Source
  /** Set once they sign up: their later visits are the user's. */
  user: User | undefined
}

/** How long after a visit someone is still likely to come back. */
const VISITOR_MEMORY_MS = 5 * DAY_MS
const USER_MEMORY_MS = 14 * DAY_MS

export class Population {
  readonly visitors: Array<Visitor> = []
  readonly users: Array<User> = []
  readonly companies: Array<Company> = []
  private readonly emails = new Set<string>()
  private userSerial = 0

  constructor(
    private readonly chance: Chance,
    start: number,
    existingUsers: number
  ) {
    // Customers from before the span: their first session in it starts with a log-in.
    for (let i = 0; i < existingUsers; i++) {
      const company =
        i % 3 === 0 || this.companies.length === 0
          ? this.newCompany(start - chance.int(30, 700) * DAY_MS, chance.draw(EXISTING_PLANS))
          : chance.pick(this.companies)
      this.users.push(this.newUser(company, start - chance.int(1, 20) * DAY_MS))
    }
  }

  newDevice(ms: number): Device {
    const { chance } = this
    const kind = chance.draw(DEVICES)
    const [timezone, language] = chance.draw(LOCALES)
    const [width, height] = chance.pick(kind.screens)
    return {
      anonId: chance.uuidv7(ms),
      properties: {
        $os: kind.os,
        $os_version: chance.pick(kind.osVersions),
        $browser: kind.browser,
        $browser_version: chance.int(...kind.browserVersions),
        $device_type: kind.deviceType,
        $screen_width: width,
        $screen_height: height,
        $timezone: timezone,
        $browser_language: language
      }
    }
  }

  newVisitor(ms: number): Visitor {
    const visitor: Visitor = {
      device: this.newDevice(ms),
      source: this.chance.draw(SOURCES),
      // Most visitors never return; a few keep reading.
      engagement: this.chance.number() ** 3,
      lastSeen: ms,
      busyUntil: ms,
      user: undefined
    }
    this.visitors.push(visitor)
    return visitor
  }

  newCompany(ms: number, plan: Plan = "free"): Company {
    const { chance } = this
    const n = this.companies.length
    const [first, second] = COMPANY_WORDS
    const base = `${first[n % first.length]} ${second[Math.floor(n / first.length) % second.length]}`
    const round = Math.floor(n / (first.length * second.length))
    const name = round === 0 ? base : `${base} ${round + 1}`
    const key = name.toLowerCase().replaceAll(" ", "-")
    const company: Company = {
      key,
      name,
      domain: `${key}.example`,
      industry: chance.pick(INDUSTRIES),
      employees: Math.max(1, Math.round(chance.logNormal(25, 1.3))),
      createdAt: ms,
      plan,
      seats: plan === "free" ? 1 : chance.int(2, 40),
      identified: false,
      documents: 0,
      projects: 0
    }
    this.companies.push(company)
    return company
  }

  /** A user-to-be; `register` makes them one once their sign-up is in the data. */
  newUser(company: Company, ms: number): User {
    const { chance } = this
    const first = chance.pick(FIRST_NAMES)
    const last = chance.pick(LAST_NAMES)
    const local = `${first}.${last}`.toLowerCase().replaceAll("ü", "ue")
    let email = `${local}@${company.domain}`
    for (let i = 2; this.emails.has(email); i++) email = `${local}${i}@${company.domain}`
    this.emails.add(email)
    return {
      id: `user_${++this.userSerial}`,
      email,
      name: `${first} ${last}`,
      company,
      plan: company.plan,
      devices: [],
      engagement: 0.15 + 0.85 * chance.number() ** 2,
      lastSeen: ms,
      busyUntil: ms
    }
  }

  register(user: User): void {
    this.users.push(user)
  }

  /** Someone from `pool` coming back at `ms`, likelier the more engaged and the more recent; else none. */
  private returning<A extends Returning>(
    pool: ReadonlyArray<A>,
    ms: number,
    memory: number,
    accept: (a: A) => boolean
  ): A | undefined {
    if (pool.length === 0) return undefined
    for (let tries = 0; tries < 30; tries++) {
      const candidate = this.chance.pick(pool)
      if (candidate.busyUntil > ms || !accept(candidate)) continue
      const recency = 0.25 + 0.75 * Math.exp(-(ms - candidate.lastSeen) / memory)
      if (this.chance.chance(candidate.engagement * recency)) return candidate
    }
    return undefined
  }

  returningVisitor(ms: number): Visitor | undefined {
    return this.returning(this.visitors, ms, VISITOR_MEMORY_MS, (v) => v.user === undefined)
  }

  returningUser(ms: number): User | undefined {
    return this.returning(this.users, ms, USER_MEMORY_MS, () => true)
  }
}

import {
  APP_CLICKS,
  type Clickable,
  APP_HOST,
  FLAGS,
  JOB_TITLES,
  MARKETING_CLICKS,
  MARKETING_HOST,
  MARKETING_NEXT,
  type MarketingPage,
  marketingPaths,
  PLAN_PRICES,
  RARE_EVENTS,
  RETURN_SOURCES,
  SIGNUP_CONVERSION,
  type Source,
  UPGRADES
} from "./catalog.js"
import type { Population, User, Visitor } from "./population.js"
import { type Chance, weighted } from "./random.js"
import { type SessionWriter, Visit } from "./session.js"

// What people do in a session: anonymous visitors read the marketing site and some sign up; users
// work in the app (opening a browser they have not used before with a log-in), and now and then
// upgrade, which the backend reports too.

const DAY_MS = 86_400_000

/** Time spent on a page before the next one, in ms. */
const reading = (chance: Chance) => Math.min(600_000, chance.logNormal(25_000, 0.9))
/** Time before a click on the page, in ms. */
const glance = (chance: Chance) => Math.min(120_000, chance.logNormal(5_000, 0.8))

const utmOf = (chance: Chance, source: Source): Record<string, string> | undefined =>
  source.utm && {
    utm_source: source.utm.source,
    utm_medium: source.utm.medium,
    utm_campaign: chance.pick(source.utm.campaigns)
  }

const clicks = (visit: Visit, elements: ReadonlyArray<Clickable>) => {
  const { chance } = visit.writer
  for (let n = 0; n < 3 && chance.chance(n === 0 ? 0.55 : 0.2); n++) {
    visit.writer.wait(glance(chance))
    if (!visit.click(chance.pick(elements))) return
  }
}

const marketingPage = (visit: Visit, page: MarketingPage) => {
  const { chance } = visit.writer
  clicks(visit, MARKETING_CLICKS)
  if (page === "home") visit.flag(FLAGS.hero)
  if (page === "pricing") {
    visit.flag(FLAGS.pricing)
    if (chance.chance(0.03)) visit.capture("contact_sales_clicked", { plan: chance.pick(["pro", "enterprise"]) })
    if (chance.chance(0.01)) visit.capture("demo_requested", { team_size: chance.int(5, 500) })
  }
  if (page === "post" && chance.chance(0.02)) visit.capture("newsletter_subscribed", { source: "blog" })
}

/** An anonymous visit to the marketing site; on the sign-up page some create an account. */
export const anonymousVisit = (writer: SessionWriter, population: Population, visitor: Visitor, returning: boolean) => {
  const { chance } = writer
  const source = returning ? chance.draw(RETURN_SOURCES) : visitor.source
  const visit = new Visit(writer, visitor.device, source, visitor.device.anonId)
  let page: MarketingPage = chance.pick(source.landings)
  if (page === "login") page = "home"
  for (let views = 0; views < 20; views++) {
    if (
      !visit.pageview(
        MARKETING_HOST,
        chance.pick(marketingPaths[page]),
        views === 0 ? utmOf(chance, source) : undefined
      )
    )
      return
    marketingPage(visit, page)
    if (page === "signup" && chance.chance(SIGNUP_CONVERSION)) return signUp(visit, population, visitor)
    const next: MarketingPage | "exit" = chance.draw(MARKETING_NEXT[page])
    writer.wait(reading(chance))
    if (next === "exit") break
    page = next
  }
  if (chance.chance(0.5)) visit.pageleave()
}

const signUp = (visit: Visit, population: Population, visitor: Visitor) => {
  const { chance } = visit.writer
  // Some join a colleague's company by invitation; the rest start their own.
  const invited = population.companies.length > 0 && chance.chance(0.35)
  const company = invited ? chance.pick(population.companies) : population.newCompany(visit.writer.now)
  const user = population.newUser(company, visit.writer.now)
  visit.writer.wait(glance(chance) * 3)
  if (!visit.click({ tag: "button", classes: ["btn", "btn-primary"], text: "Create account" })) return
  visit.writer.wait(chance.int(800, 3000))
  const identified = visit.identify(
    user,
    { email: user.email, name: user.name, plan: user.plan, company: company.name },
    {
      initial_referrer: visitor.source.referrer,
      initial_referring_domain: visitor.source.domain,
      signed_up_at: new Date(visit.writer.now).toISOString()
    }
  )
  if (!identified) return
  visitor.user = user
  user.devices.push(visitor.device)
  population.register(user)
  visit.group(company)
  visit.capture("signed_up", {
    signup_method: chance.pick(["email", "email", "google", "github"]),
    plan: user.plan,
    is_invited: invited
  })
  visit.writer.wait(chance.int(1000, 4000))
  if (!visit.pageview(APP_HOST, "/onboarding")) return
  if (chance.chance(0.7)) {
    const started = visit.writer.now
    visit.writer.wait(chance.logNormal(90_000, 0.7))
    visit.capture("onboarding_completed", {
      duration_ms: visit.writer.now - started,
      steps_completed: chance.int(3, 5)
    })
  }
  appSession(visit, user, 1 + chance.geometric(2))
}

/** A user's session: in the app, after a log-in when the browser is new to them. */
export const userVisit = (writer: SessionWriter, population: Population, user: User) => {
  const { chance } = writer
  const source = chance.draw(RETURN_SOURCES)
  const known = user.devices.length > 0 && !chance.chance(0.05)
  if (known) {
    const device = chance.chance(0.85) ? user.devices[0]! : chance.pick(user.devices)
    const visit = new Visit(writer, device, source, user.id)
    visit.group(user.company)
    if (!visit.pageview(APP_HOST, "/")) return
    return appSession(visit, user, 1 + chance.geometric(1 + 6 * user.engagement))
  }
  const device = population.newDevice(writer.now)
  const visit = new Visit(writer, device, source, device.anonId)
  if (!visit.pageview(MARKETING_HOST, "/login")) return
  writer.wait(glance(chance) * 2)
  if (!visit.click({ tag: "button", classes: ["btn", "btn-primary"], text: "Log in" })) return
  writer.wait(chance.int(500, 2000))
  if (
    !visit.identify(
      user,
      { email: user.email, name: user.name, plan: user.plan, company: user.company.name },
      undefined
    )
  )
    return
  user.devices.push(device)
  visit.group(user.company)
  visit.capture("logged_in", { method: chance.pick(["password", "google", "magic_link"]) })
  writer.wait(chance.int(300, 1500))
  if (!visit.pageview(APP_HOST, "/")) return
  appSession(visit, user, 1 + chance.geometric(1 + 6 * user.engagement))
}

type Activity = (visit: Visit, user: User) => void

const pick = (chance: Chance, count: number) => chance.int(1, Math.max(1, count))

const ACTIVITIES = weighted<Activity>([
  [
    (visit, user) => {
      const { chance } = visit.writer
      const id = pick(chance, user.company.documents)
      if (chance.chance(0.1)) visit.newWindow()
      if (!visit.pageview(APP_HOST, `/documents/${id}`)) return
      const editor = visit.flag(FLAGS.editor)
      visit.writer.wait(chance.logNormal(60_000, 1))
      if (chance.chance(0.6)) {
        visit.capture("document_edited", {
          document_id: id,
          duration_ms: Math.round(chance.logNormal(45_000, 1.1)),
          word_count: Math.round(chance.logNormal(600, 1)),
          editor: editor === "test" ? "new" : "classic"
        })
      }
    },
    30
  ],
  [
    (visit, user) => {
      const { chance } = visit.writer
      visit.click(APP_CLICKS[0]!)
      visit.writer.wait(chance.int(200, 900))
      const fromTemplate = chance.chance(0.3)
      const id = ++user.company.documents
      visit.capture("document_created", {
        document_id: id,
        from_template: fromTemplate,
        ...(fromTemplate ? { template: chance.pick(["meeting-notes", "spec", "retro", "roadmap"]) } : {})
      })
      visit.writer.wait(chance.int(300, 1200))
      visit.pageview(APP_HOST, `/documents/${id}`)
    },
    10
  ],
  [
    (visit) => {
      const { chance } = visit.writer
      if (!visit.pageview(APP_HOST, "/search")) return
      visit.writer.wait(glance(chance))
      const results = chance.chance(0.12) ? 0 : Math.round(chance.logNormal(8, 1))
      visit.capture("search_performed", {
        query_length: chance.int(2, 40),
        results_count: results,
        has_results: results > 0
      })
    },
    12
  ],
  [
    (visit, user) => {
      const { chance } = visit.writer
      const id = pick(chance, user.company.projects)
      if (!visit.pageview(APP_HOST, `/projects/${id}`)) return
      visit.writer.wait(glance(chance) * 2)
      if (chance.chance(0.6)) {
        const due = Math.floor(visit.writer.now / DAY_MS + chance.int(1, 21)) * DAY_MS + 17 * 3_600_000
        visit.capture("task_created", {
          project_id: id,
          priority: chance.pick(["low", "medium", "medium", "high"]),
          due_date: new Date(due).toISOString(),
          assignee_count: chance.int(0, 3)
        })
      } else {
        visit.capture("task_completed", {
          project_id: id,
          time_to_complete_ms: Math.round(chance.logNormal(2 * DAY_MS, 1.2)),
          on_time: chance.chance(0.7)
        })
      }
    },
    10
  ],
  [
    (visit, user) => {
      visit.capture("project_created", {
        project_id: ++user.company.projects,
        is_private: visit.writer.chance.chance(0.3)
      })
    },
    3
  ],
  [
    (visit, user) => {
      const { chance } = visit.writer
      visit.click(APP_CLICKS[6]!)
      visit.writer.wait(chance.logNormal(20_000, 0.8))
      visit.capture("comment_added", {
        document_id: pick(chance, user.company.documents),
        comment_length: Math.round(chance.logNormal(80, 0.9)),
        mentions: chance.int(0, 2)
      })
    },
    8
  ],
  [
    (visit) => {
      const { chance } = visit.writer
      const type = chance.pick(["png", "jpg", "pdf", "csv", "docx"])
      visit.capture("file_uploaded", { file_type: type, file_size_bytes: Math.round(chance.logNormal(400_000, 1.5)) })
    },
    5
  ],
  [
    (visit, user) => {
      const { chance } = visit.writer
      visit.click(APP_CLICKS[1]!)
      visit.writer.wait(glance(chance))
      visit.capture("document_shared", {
        document_id: pick(chance, user.company.documents),
        is_public: chance.chance(0.2),
        share_method: chance.pick(["link", "email", "slack"])
      })
    },
    5
  ],
  [
    (visit) => {
      const { chance } = visit.writer
      visit.capture("export_completed", {
        format: chance.pick(["pdf", "pdf", "docx", "markdown"]),
        page_count: chance.int(1, 40),
        duration_ms: Math.round(chance.logNormal(2_500, 0.7))
      })
    },
    3
  ],
  [
    (visit, user) => {
      const { chance } = visit.writer
      if (visit.flag(FLAGS.ai) !== true) return
      visit.writer.wait(glance(chance))
      visit.capture("ai_summary_generated", {
        document_id: pick(chance, user.company.documents),
        duration_ms: Math.round(chance.logNormal(3_200, 0.5)),
        tokens: chance.int(150, 1200),
        accepted: chance.chance(0.65)
      })
    },
    6
  ],
  [
    (visit) => {
      const { chance } = visit.writer
      if (!visit.pageview(APP_HOST, "/settings/team")) return
      visit.writer.wait(glance(chance))
      visit.capture("invite_sent", {
        role: chance.pick(["member", "member", "admin", "guest"]),
        invitee_count: chance.int(1, 4)
      })
    },
    2
  ],
  [
    (visit) => {
      const { chance } = visit.writer
      if (!visit.pageview(APP_HOST, "/settings")) return
      visit.writer.wait(glance(chance))
      visit.capture("$set", { $set: { job_title: chance.pick(JOB_TITLES) } })
    },
    1
  ],
  [(visit, user) => upgrade(visit, user), 2]
])

/** A look at billing; some buy a bigger plan, which the backend confirms with an invoice. */
const upgrade = (visit: Visit, user: User) => {
  const { chance } = visit.writer
  const company = user.company
  if (!visit.pageview(APP_HOST, "/settings/billing")) return
  const options = UPGRADES[company.plan]
  if (options.length === 0 || !chance.chance(0.35)) return
  const plan = chance.pick(options)
  visit.writer.wait(glance(chance))
  if (!visit.capture("checkout_started", { plan })) return
  if (!chance.chance(0.6)) return
  visit.writer.wait(chance.logNormal(60_000, 0.6))
  const seats = Math.max(company.seats, chance.int(2, 25))
  const annual = chance.chance(0.3)
  const price = PLAN_PRICES[plan] * seats * (annual ? 10 : 1)
  const previous = company.plan
  if (
    !visit.capture("plan_upgraded", { plan, previous_plan: previous, seats, is_annual: annual, price, $set: { plan } })
  )
    return
  user.plan = plan
  company.plan = plan
  company.seats = seats
  visit.group(company, { plan, seats })
  const periodEnd = visit.writer.now + (annual ? 365 : 30) * DAY_MS
  visit.server("invoice_paid", { price, currency: "USD", plan, period_end: new Date(periodEnd).toISOString() })
}

const appSession = (visit: Visit, user: User, actions: number) => {
  const { chance } = visit.writer
  clicks(visit, APP_CLICKS)
  for (let i = 0; i < Math.min(actions, 40); i++) {
    visit.writer.wait(reading(chance))
    chance.draw(ACTIVITIES)(visit, user)
    clicks(visit, APP_CLICKS)
  }
  for (const [event, probability] of RARE_EVENTS) {
    if (chance.chance(probability)) {
      visit.writer.wait(glance(chance))
      visit.capture(event, {})
    }
  }
  visit.writer.wait(reading(chance))
  if (chance.chance(0.5)) visit.pageleave()
}

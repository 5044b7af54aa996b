import { type Weighted, weighted } from "./random.js"

// What the demo product ("Quill", a team documents app) looks like from its analytics: sites, pages,
// where visitors come from, their devices, the events its code captures, its flags and plans.
// Domains are under `.example` (reserved), so no generated URL or e-mail reaches anyone.

export const MARKETING_HOST = "quill.example"
export const APP_HOST = "app.quill.example"
/** The SDK versions the events claim (the ones this repository tests against). */
export const WEB_LIB_VERSION = "1.434.18"
export const NODE_LIB_VERSION = "5.70.0"

/** Events from the product's backend (posthog-node) happen this long after the click that caused them. */
export const SERVER_DELAY_MS = 400

// Event names, grouped by where they come from.
const SDK_EVENTS = [
  "$pageview",
  "$pageleave",
  "$autocapture",
  "$identify",
  "$groupidentify",
  "$feature_flag_called",
  "$set"
] as const
const MARKETING_EVENTS = ["newsletter_subscribed", "contact_sales_clicked", "demo_requested"] as const
const PRODUCT_EVENTS = [
  "signed_up",
  "logged_in",
  "onboarding_completed",
  "document_created",
  "document_edited",
  "document_shared",
  "comment_added",
  "file_uploaded",
  "search_performed",
  "project_created",
  "task_created",
  "task_completed",
  "invite_sent",
  "export_completed",
  "ai_summary_generated",
  "checkout_started",
  "plan_upgraded",
  "invoice_paid"
] as const

/** Rare events with their chance per app session: the long tail. */
export const RARE_EVENTS = [
  ["theme_changed", 0.006],
  ["integration_connected", 0.005],
  ["password_reset_requested", 0.004],
  ["api_key_created", 0.003],
  ["support_ticket_opened", 0.003],
  ["two_factor_enabled", 0.002],
  ["webhook_configured", 0.002],
  ["mobile_app_linked", 0.0015],
  ["workspace_renamed", 0.001],
  ["billing_failed", 0.0008],
  ["sso_configured", 0.0005],
  ["account_deleted", 0.0002]
] as const

/** Every event name the demo data holds. */
export const DEMO_EVENT_NAMES: ReadonlyArray<string> = [
  ...SDK_EVENTS,
  ...MARKETING_EVENTS,
  ...PRODUCT_EVENTS,
  ...RARE_EVENTS.map(([name]) => name)
]

export interface DeviceKind {
  readonly browser: string
  readonly os: string
  readonly osVersions: ReadonlyArray<string>
  readonly browserVersions: readonly [number, number]
  readonly deviceType: "Desktop" | "Mobile" | "Tablet"
  readonly screens: ReadonlyArray<readonly [number, number]>
}

const DESKTOP_SCREENS = [
  [1920, 1080],
  [1440, 900],
  [1536, 864],
  [2560, 1440],
  [1366, 768]
] as const
const PHONE_SCREENS = [
  [390, 844],
  [393, 852],
  [412, 915],
  [375, 667]
] as const

export const DEVICES = weighted<DeviceKind>([
  [
    {
      browser: "Chrome",
      os: "Windows",
      osVersions: ["10", "11"],
      browserVersions: [128, 131],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    27
  ],
  [
    {
      browser: "Chrome",
      os: "Mac OS X",
      osVersions: ["10.15.7", "14.6.1"],
      browserVersions: [128, 131],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    20
  ],
  [
    {
      browser: "Safari",
      os: "Mac OS X",
      osVersions: ["14.6.1", "15.1"],
      browserVersions: [17, 18],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    10
  ],
  [
    {
      browser: "Microsoft Edge",
      os: "Windows",
      osVersions: ["10", "11"],
      browserVersions: [129, 131],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    7
  ],
  [
    {
      browser: "Firefox",
      os: "Windows",
      osVersions: ["10", "11"],
      browserVersions: [130, 133],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    5
  ],
  [
    {
      browser: "Firefox",
      os: "Linux",
      osVersions: [""],
      browserVersions: [130, 133],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    2
  ],
  [
    {
      browser: "Chrome",
      os: "Linux",
      osVersions: [""],
      browserVersions: [128, 131],
      deviceType: "Desktop",
      screens: DESKTOP_SCREENS
    },
    3
  ],
  [
    {
      browser: "Mobile Safari",
      os: "iOS",
      osVersions: ["17.6.1", "18.1"],
      browserVersions: [17, 18],
      deviceType: "Mobile",
      screens: PHONE_SCREENS
    },
    14
  ],
  [
    {
      browser: "Chrome",
      os: "Android",
      osVersions: ["13", "14", "15"],
      browserVersions: [128, 131],
      deviceType: "Mobile",
      screens: PHONE_SCREENS
    },
    9
  ],
  [
    {
      browser: "Samsung Internet",
      os: "Android",
      osVersions: ["14"],
      browserVersions: [25, 26],
      deviceType: "Mobile",
      screens: PHONE_SCREENS
    },
    1
  ],
  [
    {
      browser: "Mobile Safari",
      os: "iOS",
      osVersions: ["17.6.1", "18.1"],
      browserVersions: [17, 18],
      deviceType: "Tablet",
      screens: [
        [820, 1180],
        [1024, 1366]
      ]
    },
    2
  ]
])

/** Time zone and language of a visitor. */
export const LOCALES = weighted<readonly [string, string]>([
  [["America/New_York", "en-US"], 22],
  [["America/Los_Angeles", "en-US"], 14],
  [["Europe/London", "en-GB"], 12],
  [["Europe/Berlin", "de-DE"], 10],
  [["Europe/Paris", "fr-FR"], 7],
  [["America/Sao_Paulo", "pt-BR"], 5],
  [["Asia/Kolkata", "en-IN"], 6],
  [["Australia/Sydney", "en-AU"], 4],
  [["Asia/Tokyo", "ja-JP"], 3],
  [["Europe/Amsterdam", "nl-NL"], 4]
])

export type MarketingPage =
  | "home"
  | "pricing"
  | "features"
  | "ai"
  | "blog"
  | "post"
  | "docs"
  | "doc"
  | "changelog"
  | "about"
  | "signup"
  | "login"

const BLOG_POSTS = [
  "writing-better-specs",
  "async-standups",
  "quill-vs-wikis",
  "launch-week-recap",
  "templates-that-scale"
]
const DOCS_PAGES = ["getting-started", "templates", "permissions", "integrations", "api"]

export const marketingPaths: Record<MarketingPage, ReadonlyArray<string>> = {
  home: ["/"],
  pricing: ["/pricing"],
  features: ["/features"],
  ai: ["/features/ai"],
  blog: ["/blog"],
  post: BLOG_POSTS.map((slug) => `/blog/${slug}`),
  docs: ["/docs"],
  doc: DOCS_PAGES.map((slug) => `/docs/${slug}`),
  changelog: ["/changelog"],
  about: ["/about"],
  signup: ["/signup"],
  login: ["/login"]
}

/** Where a visitor goes from each marketing page (`exit` ends the visit). */
export const MARKETING_NEXT: Record<MarketingPage, Weighted<MarketingPage | "exit">> = {
  home: weighted([
    ["pricing", 22],
    ["features", 18],
    ["blog", 6],
    ["signup", 10],
    ["docs", 4],
    ["about", 3],
    ["exit", 37]
  ]),
  pricing: weighted([
    ["signup", 24],
    ["features", 10],
    ["home", 6],
    ["docs", 4],
    ["exit", 56]
  ]),
  features: weighted([
    ["pricing", 28],
    ["ai", 14],
    ["signup", 12],
    ["home", 4],
    ["exit", 42]
  ]),
  ai: weighted([
    ["pricing", 25],
    ["signup", 15],
    ["features", 10],
    ["exit", 50]
  ]),
  blog: weighted([
    ["post", 55],
    ["home", 10],
    ["exit", 35]
  ]),
  post: weighted([
    ["post", 14],
    ["blog", 8],
    ["home", 10],
    ["pricing", 5],
    ["signup", 3],
    ["exit", 60]
  ]),
  docs: weighted([
    ["doc", 60],
    ["signup", 6],
    ["exit", 34]
  ]),
  doc: weighted([
    ["doc", 35],
    ["docs", 5],
    ["signup", 5],
    ["exit", 55]
  ]),
  changelog: weighted([
    ["home", 15],
    ["pricing", 10],
    ["exit", 75]
  ]),
  about: weighted([
    ["home", 20],
    ["pricing", 10],
    ["exit", 70]
  ]),
  signup: weighted([
    ["pricing", 15],
    ["home", 10],
    ["exit", 75]
  ]),
  login: weighted([
    ["home", 30],
    ["exit", 70]
  ])
}

/** Chance that a visitor on the sign-up page creates an account. */
export const SIGNUP_CONVERSION = 0.42

export interface Source {
  readonly name: string
  readonly referrer: string
  readonly domain: string
  readonly landings: ReadonlyArray<MarketingPage>
  readonly utm?: { readonly source: string; readonly medium: string; readonly campaigns: ReadonlyArray<string> }
}

const DIRECT: Source = {
  name: "direct",
  referrer: "$direct",
  domain: "$direct",
  landings: ["home", "home", "pricing", "login"]
}

/** Where new visitors come from. */
export const SOURCES = weighted<Source>([
  [DIRECT, 34],
  [
    {
      name: "google",
      referrer: "https://www.google.com/",
      domain: "www.google.com",
      landings: ["home", "post", "doc", "features", "pricing"]
    },
    24
  ],
  [
    {
      name: "google ads",
      referrer: "https://www.google.com/",
      domain: "www.google.com",
      landings: ["home", "pricing"],
      utm: { source: "google", medium: "cpc", campaigns: ["brand", "competitor-wikis", "ai-writing"] }
    },
    7
  ],
  [{ name: "bing", referrer: "https://www.bing.com/", domain: "www.bing.com", landings: ["home", "post"] }, 2],
  [{ name: "duckduckgo", referrer: "https://duckduckgo.com/", domain: "duckduckgo.com", landings: ["home", "doc"] }, 2],
  [
    {
      name: "hacker news",
      referrer: "https://news.ycombinator.com/",
      domain: "news.ycombinator.com",
      landings: ["post", "home"]
    },
    4
  ],
  [
    {
      name: "x",
      referrer: "https://t.co/",
      domain: "t.co",
      landings: ["home", "post", "ai"],
      utm: { source: "twitter", medium: "social", campaigns: ["launch-week", "ai-beta"] }
    },
    5
  ],
  [
    {
      name: "linkedin",
      referrer: "https://www.linkedin.com/",
      domain: "www.linkedin.com",
      landings: ["home", "features"],
      utm: { source: "linkedin", medium: "paid_social", campaigns: ["team-docs", "launch-week"] }
    },
    4
  ],
  [
    {
      name: "newsletter",
      referrer: "$direct",
      domain: "$direct",
      landings: ["post", "changelog", "ai"],
      utm: { source: "newsletter", medium: "email", campaigns: ["monthly-update", "ai-beta"] }
    },
    4
  ],
  [{ name: "reddit", referrer: "https://www.reddit.com/", domain: "www.reddit.com", landings: ["post", "home"] }, 3],
  [{ name: "github", referrer: "https://github.com/", domain: "github.com", landings: ["doc", "docs"] }, 3],
  [
    {
      name: "product hunt",
      referrer: "https://www.producthunt.com/",
      domain: "www.producthunt.com",
      landings: ["home"]
    },
    2
  ]
])

/** How returning visitors arrive. */
export const RETURN_SOURCES = weighted<Source>([
  [DIRECT, 60],
  [
    {
      name: "google",
      referrer: "https://www.google.com/",
      domain: "www.google.com",
      landings: ["home", "pricing", "doc"]
    },
    30
  ],
  [
    {
      name: "newsletter",
      referrer: "$direct",
      domain: "$direct",
      landings: ["changelog", "post"],
      utm: { source: "newsletter", medium: "email", campaigns: ["monthly-update"] }
    },
    10
  ]
])

/** Something to click (autocapture), with the element's tag, classes and text. */
export interface Clickable {
  readonly tag: "a" | "button"
  readonly classes: ReadonlyArray<string>
  readonly text: string
  readonly href?: string
}

const link = (text: string, href: string): Clickable => ({ tag: "a", classes: ["nav-link"], text, href })
const button = (text: string, ...classes: Array<string>): Clickable => ({
  tag: "button",
  classes: ["btn", ...classes],
  text
})

export const MARKETING_CLICKS: ReadonlyArray<Clickable> = [
  button("Get started", "btn-primary"),
  button("Start free trial", "btn-primary"),
  link("Pricing", "/pricing"),
  link("Features", "/features"),
  link("Docs", "/docs"),
  link("Log in", "/login"),
  button("Watch demo", "btn-secondary"),
  button("Toggle menu", "btn-icon")
]

export const APP_CLICKS: ReadonlyArray<Clickable> = [
  button("New document", "btn-primary"),
  button("Share", "btn-secondary"),
  button("Search", "btn-icon"),
  link("Documents", "/documents"),
  link("Projects", "/projects"),
  link("Settings", "/settings"),
  button("Add comment", "btn-secondary"),
  button("More", "btn-icon")
]

export interface Flag {
  readonly key: string
  /** Boolean flags: share of users for whom it is on; multivariate flags: variants by weight. */
  readonly rollout: number
  readonly variants?: ReadonlyArray<readonly [string, number]>
}

export const FLAGS = {
  hero: { key: "new-homepage-hero", rollout: 0.5 },
  pricing: {
    key: "pricing-page-experiment",
    rollout: 1,
    variants: [
      ["control", 50],
      ["annual-first", 50]
    ]
  },
  editor: {
    key: "new-editor",
    rollout: 1,
    variants: [
      ["control", 50],
      ["test", 50]
    ]
  },
  ai: { key: "ai-assistant", rollout: 0.3 }
} satisfies Record<string, Flag>

export type Plan = "free" | "starter" | "pro" | "enterprise"

/** Monthly price per seat. */
export const PLAN_PRICES: Record<Plan, number> = { free: 0, starter: 8, pro: 15, enterprise: 39 }
export const UPGRADES: Record<Plan, ReadonlyArray<Plan>> = {
  free: ["starter", "pro"],
  starter: ["pro"],
  pro: ["enterprise"],
  enterprise: []
}
/** Plans of the companies that were customers before the span starts. */
export const EXISTING_PLANS = weighted<Plan>([
  ["free", 50],
  ["starter", 25],
  ["pro", 18],
  ["enterprise", 7]
])

export const INDUSTRIES = ["software", "agency", "education", "finance", "healthcare", "retail", "media", "nonprofit"]
export const COMPANY_WORDS = [
  [
    "Blue",
    "Copper",
    "North",
    "Bright",
    "Silver",
    "Quiet",
    "Rapid",
    "Golden",
    "Open",
    "Clear",
    "Maple",
    "Iron",
    "Red",
    "Lucky",
    "Pine",
    "Summit"
  ],
  [
    "Harbor",
    "Labs",
    "Works",
    "Studio",
    "Systems",
    "Analytics",
    "Foundry",
    "Media",
    "Health",
    "Partners",
    "Logistics",
    "Robotics",
    "Goods",
    "Cloud"
  ]
] as const
export const FIRST_NAMES = [
  "Ada",
  "Ben",
  "Chloe",
  "Dev",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Lena",
  "Mateo",
  "Nora",
  "Omar",
  "Priya",
  "Quinn",
  "Rosa",
  "Sam",
  "Tara",
  "Uma",
  "Viktor",
  "Wen",
  "Yusuf",
  "Zoe"
]
export const LAST_NAMES = [
  "Adams",
  "Bauer",
  "Chen",
  "Dubois",
  "Evans",
  "Fischer",
  "Garcia",
  "Haddad",
  "Ivanova",
  "Jensen",
  "Kowalski",
  "Lopez",
  "Müller",
  "Nakamura",
  "Okafor",
  "Patel",
  "Rossi",
  "Silva",
  "Tanaka",
  "Novak",
  "Weber",
  "Young"
]
export const JOB_TITLES = [
  "Engineer",
  "Product Manager",
  "Designer",
  "Founder",
  "Marketing Lead",
  "Support Lead",
  "Writer",
  "Operations"
]

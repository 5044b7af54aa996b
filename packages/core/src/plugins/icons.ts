/** An icon for the zed_functions picker: line art on a 24×24 grid, drawn in the text colour. */
export interface Icon {
  readonly id: string
  readonly name: string
  readonly keywords: ReadonlyArray<string>
  readonly svg: string
}

// Every icon shares one frame so they line up in the picker and follow the theme via currentColor.
const frame = (body: string): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" fill="none" ` +
  `stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`

const icon = (id: string, name: string, keywords: ReadonlyArray<string>, body: string): Icon => ({
  id,
  name,
  keywords,
  svg: frame(body)
})

export const ICONS: ReadonlyArray<Icon> = [
  icon(
    "webhook",
    "Webhook",
    ["hook", "callback", "integration", "trigger"],
    `<circle cx="12" cy="6" r="3"/><circle cx="6" cy="17" r="3"/><circle cx="18" cy="17" r="3"/>` +
      `<path d="M10.5 8.6 7.5 14.4M13.5 8.6l3 5.8M9 17h6"/>`
  ),
  icon(
    "http",
    "HTTP request",
    ["api", "request", "fetch", "rest", "url"],
    `<rect x="3" y="5" width="18" height="14" rx="2"/><path d="M3 9h18M8 14h7M13 12l2 2-2 2"/>`
  ),
  icon(
    "email",
    "Email",
    ["mail", "message", "inbox", "send"],
    `<rect x="3" y="5" width="18" height="14" rx="2"/><path d="m3 7 9 6 9-6"/>`
  ),
  icon(
    "chat",
    "Chat",
    ["message", "slack", "conversation", "notify"],
    `<path d="M4 5h16v11H9l-5 4z"/><path d="M8 9h8M8 12h5"/>`
  ),
  icon(
    "database",
    "Database",
    ["storage", "warehouse", "sql", "table"],
    `<ellipse cx="12" cy="6" rx="8" ry="3"/>` +
      `<path d="M4 6v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3"/>`
  ),
  icon(
    "bell",
    "Bell",
    ["alert", "notification", "alarm", "notify"],
    `<path d="M6 16v-5a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 21h4"/>`
  ),
  icon(
    "code",
    "Code",
    ["script", "function", "developer", "transform"],
    `<path d="M8 7l-5 5 5 5M16 7l5 5-5 5M14 4l-4 16"/>`
  ),
  icon(
    "chart",
    "Chart",
    ["analytics", "graph", "metrics", "insight"],
    `<path d="M4 4v16h16"/><path d="M8 16v-4M12 16V8M16 16v-6"/>`
  ),
  icon("filter", "Filter", ["funnel", "drop", "exclude", "sample"], `<path d="M3 5h18l-7 8v6l-4 2v-8z"/>`),
  icon(
    "shield",
    "Shield",
    ["security", "privacy", "protect", "gdpr"],
    `<path d="M12 3 5 6v5c0 4.5 3 8.3 7 10 4-1.7 7-5.5 7-10V6z"/><path d="m9 12 2 2 4-4"/>`
  ),
  icon(
    "globe",
    "Globe",
    ["world", "geoip", "location", "web", "internet"],
    `<circle cx="12" cy="12" r="9"/>` +
      `<path d="M3 12h18M12 3c2.5 2.6 3.8 5.6 3.8 9s-1.3 6.4-3.8 9c-2.5-2.6-3.8-5.6-3.8-9S9.5 5.6 12 3z"/>`
  ),
  icon(
    "user",
    "User",
    ["person", "profile", "account", "identify"],
    `<circle cx="12" cy="8" r="4"/><path d="M4 21c0-4 3.6-7 8-7s8 3 8 7"/>`
  )
]

/** Icons whose id, name or a keyword contains the query, ignoring case, in picker order; none for a blank query. */
export const searchIcons = (query: string): ReadonlyArray<Icon> => {
  const needle = query.trim().toLowerCase()
  if (needle === "") return []
  return ICONS.filter((candidate) =>
    [candidate.id, candidate.name, ...candidate.keywords].some((text) => text.toLowerCase().includes(needle))
  )
}

export const iconById = (id: string): Icon | undefined => ICONS.find((candidate) => candidate.id === id)

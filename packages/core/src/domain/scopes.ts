// Personal API key scopes, written `<object>:read|write`; `*` grants every scope.
export const scopeObjects = [
  "action",
  "activity_log",
  "annotation",
  "batch_export",
  "cohort",
  "dashboard",
  "dashboard_template",
  "early_access_feature",
  "event_definition",
  "experiment",
  "export",
  "feature_flag",
  "group",
  "heatmap",
  "insight",
  "notebook",
  "organization",
  "organization_member",
  "person",
  "plugin",
  "project",
  "property_definition",
  "query",
  "session_recording",
  "session_recording_playlist",
  "sharing_configuration",
  "subscription",
  "survey",
  "user",
  "webhook",
  "zed_function"
] as const

export type ScopeObject = (typeof scopeObjects)[number]
export type Scope = `${ScopeObject}:${"read" | "write"}`

const known = new Set<string>(scopeObjects.flatMap((o) => [`${o}:read`, `${o}:write`]).concat("*"))

export const isScope = (value: string): boolean => known.has(value)

/** Whether the scopes a key holds satisfy `required`; `:write` implies `:read`. */
export const grants = (held: ReadonlyArray<string>, required: Scope): boolean => {
  if (held.includes("*") || held.includes(required)) return true
  return required.endsWith(":read") && held.includes(`${required.slice(0, -5)}:write`)
}

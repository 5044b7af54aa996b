import { useMutation, useQuery } from "@tanstack/react-query"
import { useParams } from "@tanstack/react-router"
import { type FormEvent, useState } from "react"
import { api, apiRoot, type Paginated, type Project } from "../api.js"
import { Field, InlineForm } from "../components/Field.js"
import { ErrorAlert, Page } from "../components/Page.js"
import { queryClient } from "../queryClient.js"

// Remote-config switches the projects API has (PostHog's names).
const SWITCHES = [
  ["session_recording_opt_in", "Record sessions"],
  ["capture_console_log_opt_in", "Record console logs with sessions"],
  ["capture_performance_opt_in", "Record network timing with sessions"],
  ["autocapture_opt_out", "Turn off autocapture"],
  ["autocapture_exceptions_opt_in", "Capture exceptions"],
  ["heatmaps_opt_in", "Collect heatmaps"],
  ["capture_dead_clicks", "Capture dead clicks"],
  ["anonymize_ips", "Discard client IP addresses"]
] as const

const LEVELS: Record<number, string> = { 1: "member", 8: "admin", 15: "owner" }

/** The posthog-js snippet pointed at this Zed. */
const snippet = (token: string) => {
  const host = location.origin + apiRoot
  return `<script>
  !function(t,e){var o,n,p,r;e.__SV||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},o="capture identify alias reset register unregister getFeatureFlag isFeatureEnabled onFeatureFlags group".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);
  posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(host)}, person_profiles: "identified_only" })
</script>`
}

const Section = ({ title, children }: { readonly title: string; readonly children: React.ReactNode }) => (
  <section className="card" aria-label={title}>
    <h2>{title}</h2>
    {children}
  </section>
)

const ProjectSettings = ({ project }: { readonly project: Project }) => {
  const path = `/api/projects/${project.id}/`
  const [name, setName] = useState(project.name)
  const [timezone, setTimezone] = useState(project.timezone)
  const [filters, setFilters] = useState(JSON.stringify(project.test_account_filters, null, 2))
  // A switch shows its new state while the change is on its way. Held in the page's own state, set
  // in the click's handler: the mutation's pending state reaches React a tick later, after React has
  // put the controlled checkbox back as it was.
  const [switching, setSwitching] = useState<Readonly<Record<string, boolean>>>({})
  const update = useMutation({
    mutationFn: (changes: Record<string, unknown>) => api<Project>(path, { method: "PATCH", body: changes }),
    onSuccess: (saved) => queryClient.setQueryData(["project", String(project.id)], saved),
    onSettled: () => setSwitching({})
  })
  const reset = useMutation({
    mutationFn: () => api<Project>(`${path}reset_token/`, { method: "PATCH" }),
    onSuccess: (saved) => queryClient.setQueryData(["project", String(project.id)], saved)
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    update.mutate({ name, timezone, test_account_filters: JSON.parse(filters) })
  }
  return (
    <>
      <Section title="Project">
        <form onSubmit={submit} className="stack">
          <Field label="Name" required value={name} onChange={setName} />
          <label>
            Time zone
            <input list="zones" value={timezone} onChange={(e) => setTimezone(e.target.value)} />
            <datalist id="zones">
              {Intl.supportedValuesOf("timeZone").map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </label>
          <label>
            Test-account filters (JSON)
            <textarea rows={4} value={filters} onChange={(e) => setFilters(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={update.isPending}>
            Save
          </button>
          {update.isSuccess && <span role="status">Saved.</span>}
          <ErrorAlert error={update.error} />
        </form>
      </Section>
      <Section title="Recording and autocapture">
        <div className="stack">
          {SWITCHES.map(([key, label]) => (
            <label key={key} className="inline">
              <input
                type="checkbox"
                checked={(switching[key] ?? project[key]) === true}
                onChange={(e) => {
                  setSwitching({ ...switching, [key]: e.target.checked })
                  update.mutate({ [key]: e.target.checked })
                }}
              />{" "}
              {label}
            </label>
          ))}
        </div>
      </Section>
      <Section title="Project API key">
        <p>
          <code data-testid="api-token">{project.api_token}</code>
        </p>
        <button
          type="button"
          onClick={() => confirm("Reset the project API key? SDKs using the old one stop working.") && reset.mutate()}
        >
          Reset key
        </button>
        <ErrorAlert error={reset.error} />
        <h3>Install posthog-js</h3>
        <pre className="snippet">{snippet(project.api_token)}</pre>
      </Section>
    </>
  )
}

interface Member {
  readonly id: string
  readonly user: { readonly uuid: string; readonly first_name: string; readonly email: string }
  readonly level: number
}
interface Invite {
  readonly id: string
  readonly target_email: string
  readonly level: number
  readonly invite_url: string
}

const Members = () => {
  const members = useQuery({
    queryKey: ["members"],
    queryFn: () => api<Paginated<Member>>("/api/organizations/@current/members/")
  })
  const invites = useQuery({
    queryKey: ["invites"],
    queryFn: () => api<Paginated<Invite>>("/api/organizations/@current/invites/")
  })
  const [email, setEmail] = useState("")
  const [level, setLevel] = useState(1)
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["members"] }),
      queryClient.invalidateQueries({ queryKey: ["invites"] })
    ])
  const invite = useMutation({
    mutationFn: () =>
      api<Invite>("/api/organizations/@current/invites/", { method: "POST", body: { target_email: email, level } }),
    onSuccess: refresh
  })
  const change = useMutation({
    mutationFn: (call: { path: string; method: "PATCH" | "DELETE"; body?: unknown }) => api(call.path, call),
    onSuccess: refresh
  })
  const error = members.error ?? invite.error ?? change.error
  return (
    <Section title="Members">
      <ErrorAlert error={error} />
      <table className="list">
        <tbody>
          {(members.data?.results ?? []).map((member) => (
            <tr key={member.id}>
              <td>{member.user.email}</td>
              <td>
                <label>
                  <span className="visually-hidden">Role of {member.user.email}</span>
                  <select
                    value={member.level}
                    onChange={(e) =>
                      change.mutate({
                        path: `/api/organizations/@current/members/${member.user.uuid}/`,
                        method: "PATCH",
                        body: { level: Number(e.target.value) }
                      })
                    }
                  >
                    {Object.entries(LEVELS).map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                </label>
              </td>
              <td>
                <button
                  type="button"
                  onClick={() =>
                    change.mutate({
                      path: `/api/organizations/@current/members/${member.user.uuid}/`,
                      method: "DELETE"
                    })
                  }
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Invites</h3>
      <ul>
        {(invites.data?.results ?? []).map((pending) => (
          <li key={pending.id}>
            {pending.target_email} ({LEVELS[pending.level]}):{" "}
            <code>{location.origin + apiRoot + pending.invite_url}</code>{" "}
            <button
              type="button"
              onClick={() =>
                change.mutate({ path: `/api/organizations/@current/invites/${pending.id}/`, method: "DELETE" })
              }
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <InlineForm onSubmit={() => invite.mutate()} label="Invite">
        <Field label="E-mail" type="email" required value={email} onChange={setEmail} />
        <label>
          Role
          <select value={level} onChange={(e) => setLevel(Number(e.target.value))}>
            <option value={1}>member</option>
            <option value={8}>admin</option>
          </select>
        </label>
        <button type="submit">Invite</button>
      </InlineForm>
    </Section>
  )
}

interface PersonalKey {
  readonly id: string
  readonly label: string
  readonly mask_value: string
  readonly scopes: ReadonlyArray<string>
  readonly value?: string
}

const PersonalKeys = () => {
  const keys = useQuery({
    queryKey: ["keys"],
    queryFn: () => api<ReadonlyArray<PersonalKey>>("/api/personal_api_keys/")
  })
  const [label, setLabel] = useState("")
  const [scopes, setScopes] = useState("*")
  const [secret, setSecret] = useState<string>()
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["keys"] })
  const create = useMutation({
    mutationFn: () =>
      api<PersonalKey>("/api/personal_api_keys/", {
        method: "POST",
        body: { label, scopes: scopes.split(/[\s,]+/).filter(Boolean) }
      }),
    onSuccess: (key) => (setSecret(key.value), refresh())
  })
  const act = useMutation({
    mutationFn: ({ key, roll }: { key: PersonalKey; roll: boolean }) =>
      roll
        ? api<PersonalKey>(`/api/personal_api_keys/${key.id}/roll/`, { method: "POST" })
        : api<PersonalKey>(`/api/personal_api_keys/${key.id}/`, { method: "DELETE" }),
    onSuccess: (key) => (setSecret(key?.value), refresh())
  })
  const list = keys.data ?? []
  return (
    <Section title="Personal API keys">
      <ErrorAlert error={keys.error ?? create.error ?? act.error} />
      {secret && (
        <p role="status">
          Copy the key now, it is not shown again: <code>{secret}</code>
        </p>
      )}
      <ul>
        {list.map((key) => (
          <li key={key.id}>
            {key.label} <code>{key.mask_value}</code> {key.scopes.join(" ")}{" "}
            <button type="button" onClick={() => act.mutate({ key, roll: true })}>
              Roll
            </button>{" "}
            <button type="button" onClick={() => act.mutate({ key, roll: false })}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <InlineForm onSubmit={() => create.mutate()} label="New personal API key">
        <Field label="Label" required value={label} onChange={setLabel} />
        <Field label="Scopes" value={scopes} onChange={setScopes} />
        <button type="submit">Create key</button>
      </InlineForm>
    </Section>
  )
}

export const SettingsPage = () => {
  const { id } = useParams({ from: "/project/$id" })
  const project = useQuery({ queryKey: ["project", id], queryFn: () => api<Project>(`/api/projects/${id}/`) })
  return (
    <Page title="Project settings" className="page settings">
      <ErrorAlert error={project.error} />
      {project.data && <ProjectSettings key={project.data.api_token} project={project.data} />}
      <Members />
      <PersonalKeys />
    </Page>
  )
}

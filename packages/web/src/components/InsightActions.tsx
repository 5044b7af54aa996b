import { useMutation, useQuery } from "@tanstack/react-query"
import { useNavigate } from "@tanstack/react-router"
import { useState } from "react"
import { api, apiRoot, type Insight } from "../api.js"
import { insightName } from "../insightKinds.js"
import { queryClient } from "../queryClient.js"
import { Field, InlineForm } from "./Field.js"
import { ErrorAlert } from "./Page.js"

// What can be done to a saved insight besides looking at it: its name, description and tags, a copy,
// soft deletion, a link to share it, and what happened to it.

const path = (project: string, insight: Insight) => `/api/projects/${project}/insights/${insight.id}/`

/** Name, description and tags, saved together; `onSaved` refreshes the page's copy. */
export const InsightDetails = ({
  project,
  insight,
  onSaved
}: {
  readonly project: string
  readonly insight: Insight
  readonly onSaved: () => void
}) => {
  const [name, setName] = useState(insight.name ?? "")
  const [description, setDescription] = useState(insight.description ?? "")
  const [tags, setTags] = useState(insight.tags.join(", "))
  const save = useMutation({
    mutationFn: () =>
      api<Insight>(path(project, insight), {
        method: "PATCH",
        body: {
          name: name.trim(),
          description: description.trim(),
          tags: tags
            .split(",")
            .map((tag) => tag.trim())
            .filter((tag) => tag !== "")
        }
      }),
    onSuccess: onSaved
  })
  return (
    <InlineForm label="Details" onSubmit={() => save.mutate()}>
      <Field label="Insight name" value={name} onChange={setName} required />
      <Field label="Description" value={description} onChange={setDescription} />
      <Field label="Tags" value={tags} onChange={setTags} placeholder="web, growth" />
      <button type="submit" disabled={save.isPending}>
        Save details
      </button>
      <ErrorAlert error={save.error} />
    </InlineForm>
  )
}

/** Duplicate (opening the copy) and soft delete (back to the list). */
export const InsightCopyDelete = ({ project, insight }: { readonly project: string; readonly insight: Insight }) => {
  const navigate = useNavigate()
  const [confirming, setConfirming] = useState(false)
  const duplicate = useMutation({
    mutationFn: () =>
      api<Insight>(`/api/projects/${project}/insights/`, {
        method: "POST",
        body: {
          name: `${insightName(insight)} (copy)`,
          description: insight.description,
          tags: insight.tags,
          query: insight.query,
          saved: true
        }
      }),
    onSuccess: (copy) =>
      void navigate({ to: "/project/$id/insights/$shortId", params: { id: project, shortId: copy.short_id } })
  })
  const remove = useMutation({
    mutationFn: () => api(path(project, insight), { method: "PATCH", body: { deleted: true } }),
    onSuccess: () => {
      void queryClient.invalidateQueries()
      void navigate({ to: "/project/$id/insights", params: { id: project } })
    }
  })
  return (
    <div className="toolbar">
      <button type="button" disabled={duplicate.isPending} onClick={() => duplicate.mutate()}>
        Duplicate
      </button>
      {confirming ? (
        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
          Really delete
        </button>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          Delete
        </button>
      )}
      <ErrorAlert error={duplicate.error ?? remove.error} />
    </div>
  )
}

interface Sharing {
  readonly enabled: boolean
  readonly access_token: string
}

/** The insight's link for anyone: turned on and off, copied, and replaced by a new one. */
export const InsightSharing = ({ project, insight }: { readonly project: string; readonly insight: Insight }) => {
  const key = ["insight-sharing", project, insight.id]
  const sharing = useQuery({ queryKey: key, queryFn: () => api<Sharing>(`${path(project, insight)}sharing/`) })
  const change = useMutation({
    mutationFn: (how: "enable" | "disable" | "rotate") =>
      how === "rotate"
        ? api<Sharing>(`${path(project, insight)}sharing/refresh/`, { method: "POST" })
        : api<Sharing>(`${path(project, insight)}sharing/`, { method: "PATCH", body: { enabled: how === "enable" } }),
    onSuccess: (next) => {
      queryClient.setQueryData(key, next)
      // Each change is in the activity log.
      void queryClient.invalidateQueries({ queryKey: ["insight-activity", project, insight.id] })
    }
  })
  const [copied, setCopied] = useState(false)
  const data = sharing.data
  const link = data && `${location.origin}${apiRoot}/shared/${data.access_token}`
  return (
    <section aria-label="Sharing">
      <h2>Sharing</h2>
      <ErrorAlert error={sharing.error ?? change.error} />
      {data && (
        <div className="toolbar">
          <label className="inline">
            <input
              type="checkbox"
              checked={data.enabled}
              disabled={change.isPending}
              onChange={(event) => change.mutate(event.target.checked ? "enable" : "disable")}
            />{" "}
            Anyone with the link can see this insight
          </label>
          {data.enabled && (
            <>
              <a href={link}>{link}</a>
              <button
                type="button"
                onClick={() => void navigator.clipboard?.writeText(link!).then(() => setCopied(true))}
              >
                {copied ? "Copied" : "Copy link"}
              </button>
              <button type="button" disabled={change.isPending} onClick={() => change.mutate("rotate")}>
                Revoke link and make a new one
              </button>
            </>
          )}
        </div>
      )}
    </section>
  )
}

interface Activity {
  readonly id: string
  readonly activity: string
  readonly created_at: string
  readonly user: { readonly first_name: string; readonly email: string } | null
  readonly detail: {
    readonly changes: ReadonlyArray<{
      readonly field: string
      readonly before: unknown
      readonly after: unknown
    }> | null
  }
}

const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** The insight's activity log, newest first (the API's first page). */
export const InsightActivity = ({ project, insight }: { readonly project: string; readonly insight: Insight }) => {
  const activity = useQuery({
    queryKey: ["insight-activity", project, insight.id, insight.last_modified_at, insight.favorited],
    queryFn: () => api<{ results: ReadonlyArray<Activity> }>(`${path(project, insight)}activity/?limit=20`)
  })
  return (
    <section aria-label="Activity">
      <h2>Activity</h2>
      <ErrorAlert error={activity.error} />
      <ol className="activity">
        {activity.data?.results.map((entry) => (
          <li key={entry.id}>
            <b>{entry.user?.first_name || entry.user?.email || "Someone"}</b> {entry.activity}
            {(entry.detail.changes ?? [])
              .filter((change) => change.field)
              .map((change) => ` ${change.field}: ${shown(change.before)} → ${shown(change.after)}`)
              .join(";")}{" "}
            <time className="muted" dateTime={entry.created_at}>
              {ago(entry.created_at)}
            </time>
          </li>
        ))}
      </ol>
    </section>
  )
}

/** How long ago `iso` was, in its largest whole unit ("just now", "3 minutes ago", "2 days ago"). */
export const ago = (iso: string, now = Date.now()) => {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return "just now"
  const units = [
    [86_400, "day"],
    [3600, "hour"],
    [60, "minute"]
  ] as const
  const [size, unit] = units.find(([size]) => seconds >= size)!
  const amount = Math.floor(seconds / size)
  return `${amount} ${unit}${amount === 1 ? "" : "s"} ago`
}

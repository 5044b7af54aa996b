import { useMutation, useQuery } from "@tanstack/react-query"
import { Link, Outlet, useNavigate, useParams } from "@tanstack/react-router"
import { useEffect, useState } from "react"
import { api, type Paginated, type Project } from "./api.js"
import { meQuery, queryClient } from "./queryClient.js"
import { applyTheme, storedTheme } from "./theme.js"

const NAV = [
  { to: "/project/$id/sql", label: "SQL", key: "s" },
  { to: "/project/$id/insights", label: "Insights", key: "i" },
  { to: "/project/$id/dashboards", label: "Dashboards", key: "d" },
  { to: "/project/$id/activity/explore", label: "Activity", key: "e" },
  { to: "/project/$id/persons", label: "Persons", key: "p" },
  { to: "/project/$id/cohorts", label: "Cohorts", key: "c" },
  { to: "/project/$id/feature_flags", label: "Flags", key: "f" },
  { to: "/project/$id/experiments", label: "Experiments", key: "x" },
  { to: "/project/$id/surveys", label: "Surveys", key: "v" },
  { to: "/project/$id/early_access_features", label: "Early access", key: "a" },
  { to: "/project/$id/replay", label: "Replay", key: "r" },
  { to: "/project/$id/functions", label: "Functions", key: "n" },
  { to: "/project/$id/settings", label: "Settings", key: "," }
] as const

/** `g` then a page's key moves to that page; `/` focuses the page's first search or editor. */
const useShortcuts = (id: string) => {
  const navigate = useNavigate()
  useEffect(() => {
    let leader = false
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement
      if (target.closest("input, textarea, select, [contenteditable=true]") || event.metaKey || event.ctrlKey) return
      if (leader) {
        leader = false
        const item = NAV.find((entry) => entry.key === event.key)
        if (item) void navigate({ to: item.to, params: { id } })
      } else if (event.key === "g") {
        leader = true
      } else if (event.key === "/") {
        const field = document.querySelector<HTMLElement>("main input[type=search], main .cm-content")
        if (field) {
          event.preventDefault()
          field.focus()
        }
      }
    }
    addEventListener("keydown", onKey)
    return () => removeEventListener("keydown", onKey)
  }, [id, navigate])
}

export const Shell = () => {
  const { id } = useParams({ from: "/project/$id" })
  const navigate = useNavigate()
  const me = useQuery(meQuery)
  const projects = useQuery({
    queryKey: ["projects"],
    queryFn: () => api<Paginated<Project>>("/api/projects/?limit=100")
  })
  const [theme, setTheme] = useState(storedTheme)
  const [menuOpen, setMenuOpen] = useState(false)
  useShortcuts(id)

  const switchProject = useMutation({
    mutationFn: (next: string) => api("/api/users/@me/", { method: "PATCH", body: { set_current_team: Number(next) } }),
    onSettled: (_data, _error, next) => {
      void queryClient.invalidateQueries({ queryKey: ["me"] })
      void navigate({ to: "/project/$id/sql", params: { id: next } })
    }
  })
  const signOut = useMutation({
    mutationFn: () => api("/api/logout", { method: "POST" }),
    onSettled: () => {
      queryClient.clear()
      void navigate({ to: "/login", search: {} })
    }
  })

  return (
    <div className="shell">
      <header className="topbar">
        <Link to="/project/$id/sql" params={{ id }} className="brand" aria-label="Zed home">
          Zed
        </Link>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <Link
              key={item.to}
              to={item.to}
              params={{ id }}
              activeProps={{ "aria-current": "page", className: "active" }}
            >
              {item.label}
            </Link>
          ))}
        </nav>
        <label className="switcher">
          <span className="visually-hidden">Project</span>
          <select value={id} onChange={(event) => switchProject.mutate(event.target.value)}>
            {(projects.data?.results ?? []).map((project) => (
              <option key={project.id} value={String(project.id)}>
                {project.name}
              </option>
            ))}
            {projects.data === undefined && <option value={id}>Project {id}</option>}
          </select>
        </label>
        <div className="user-menu">
          <button type="button" aria-expanded={menuOpen} aria-haspopup="true" onClick={() => setMenuOpen(!menuOpen)}>
            {me.data?.email ?? "Account"}
          </button>
          {menuOpen && (
            <div className="menu" role="menu">
              <button
                type="button"
                role="menuitem"
                onClick={() => {
                  const next = theme === "dark" ? "light" : "dark"
                  applyTheme(next)
                  setTheme(next)
                }}
              >
                {theme === "dark" ? "Light theme" : "Dark theme"}
              </button>
              <button type="button" role="menuitem" onClick={() => signOut.mutate()}>
                Sign out
              </button>
            </div>
          )}
        </div>
      </header>
      <main>
        <Outlet />
      </main>
    </div>
  )
}

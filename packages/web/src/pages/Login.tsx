import { useMutation, useQuery } from "@tanstack/react-query"
import { useNavigate, useParams, useSearch } from "@tanstack/react-router"
import { useState } from "react"
import { ApiError, api, appRoot, type Me } from "../api.js"
import { Field, InlineForm } from "../components/Field.js"
import { queryClient } from "../queryClient.js"

/** Where to go once signed in: the page the visitor was sent away from, or the project's SQL editor. */
const useLanding = () => {
  const navigate = useNavigate()
  return (me: Me, next?: string) => {
    queryClient.setQueryData(["me"], me)
    if (next?.startsWith("/") && !next.startsWith("//")) {
      void navigate({ href: next.startsWith(appRoot) ? next.slice(appRoot.length) || "/" : next })
    } else {
      void navigate({ to: "/project/$id/sql", params: { id: String(me.team?.id ?? 1) } })
    }
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : "Something went wrong.")

export const Login = () => {
  const { next } = useSearch({ from: "/login" })
  const land = useLanding()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const login = useMutation({
    mutationFn: () => api<Me>("/api/login", { method: "POST", body: { email, password } }),
    onSuccess: (me) => land(me, next)
  })
  return (
    <main className="auth">
      <InlineForm onSubmit={() => login.mutate()} className="card" label="Sign in">
        <h1>Sign in to Zed</h1>
        <Field label="E-mail" type="email" autoComplete="username" required value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        {login.error && (
          <p role="alert" className="error">
            {login.error instanceof ApiError && login.error.status === 429
              ? "Too many attempts. Try again later."
              : message(login.error)}
          </p>
        )}
        <button type="submit" className="primary" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </InlineForm>
    </main>
  )
}

export const Signup = () => {
  const { inviteId } = useParams({ from: "/signup/$inviteId" })
  const land = useLanding()
  const invite = useQuery({
    queryKey: ["invite", inviteId],
    queryFn: () => api<{ target_email: string; organization_name: string }>(`/api/signup/${inviteId}/`)
  })
  const [firstName, setFirstName] = useState("")
  const [password, setPassword] = useState("")
  const signup = useMutation({
    mutationFn: () =>
      api<Me>(`/api/signup/${inviteId}/`, { method: "POST", body: { first_name: firstName, password } }),
    onSuccess: (me) => land(me)
  })
  return (
    <main className="auth">
      <InlineForm onSubmit={() => signup.mutate()} className="card" label="Sign up">
        <h1>Join {invite.data?.organization_name ?? "Zed"}</h1>
        {invite.error && (
          <p role="alert" className="error">
            {message(invite.error)}
          </p>
        )}
        {invite.data && <p>Signing up as {invite.data.target_email}</p>}
        <Field label="First name" required value={firstName} onChange={setFirstName} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onChange={setPassword}
        />
        {signup.error && (
          <p role="alert" className="error">
            {message(signup.error)}
          </p>
        )}
        <button type="submit" className="primary" disabled={signup.isPending || !invite.data}>
          Create account
        </button>
      </InlineForm>
    </main>
  )
}

import { Cause, Runtime } from "effect"

// `zed serve` (and the other commands) on a PostgreSQL that cannot be used: one line saying why,
// with what to do about it, rather than a driver's error.

interface Target {
  readonly host: string
  readonly port: string
  readonly database: string
  readonly user: string
}

const targetOf = (url: URL): Target => ({
  host: url.hostname || "localhost",
  port: url.port || "5432",
  database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || "postgres",
  user: decodeURIComponent(url.username) || "(your login name)"
})

/** Why `DATABASE_URL` cannot name a PostgreSQL database, or undefined when it can. */
export const badDatabaseUrl = (text: string): string | undefined => {
  const shape = "postgres://user:password@host:5432/database"
  if (!URL.canParse(text))
    return `DATABASE_URL is not a URL; it takes the form ${shape} (percent-encode special characters in the password)`
  const url = new URL(text)
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    return `DATABASE_URL starts with "${url.protocol}//"; it takes the form ${shape}`
  if (url.hostname === "" && !url.searchParams.has("host"))
    return `DATABASE_URL names no host; it takes the form ${shape}`
  return undefined
}

/** Every error and cause inside `error`: Effect's failures, causes, and the attempts of a connection to several addresses. */
const chain = (error: unknown, seen = new Set<unknown>()): Array<{ code?: unknown; message?: unknown }> => {
  if (error === null || typeof error !== "object" || seen.has(error)) return []
  seen.add(error)
  const inner: Array<unknown> = []
  if (Runtime.isFiberFailure(error))
    inner.push(
      ...Cause.failures(error[Runtime.FiberFailureCauseId]),
      ...Cause.defects(error[Runtime.FiberFailureCauseId])
    )
  if ("cause" in error) inner.push(error.cause)
  if (error instanceof AggregateError) inner.push(...error.errors)
  return [error as { code?: unknown; message?: unknown }, ...inner.flatMap((e) => chain(e, seen))]
}

/** One line on why PostgreSQL at `databaseUrl` could not be used and what to do, or undefined when the failure is not one of those. */
export const databaseHint = (error: unknown, databaseUrl: string): string | undefined => {
  const t = targetOf(new URL(databaseUrl))
  const where = `${t.host}:${t.port}`
  const failures = chain(error)
  const has = (...codes: Array<string>) => failures.some((f) => typeof f.code === "string" && codes.includes(f.code))
  if (has("ECONNREFUSED"))
    return `nothing is listening at ${where}: start PostgreSQL there, or correct the host and port in DATABASE_URL`
  if (has("ENOTFOUND")) return `the host "${t.host}" is not known: correct the host in DATABASE_URL`
  if (has("EAI_AGAIN"))
    return `the host "${t.host}" could not be looked up (DNS did not answer): check the network and DNS, then start again`
  if (has("3D000")) {
    return `the database "${t.database}" does not exist on ${where}: create it with \`createdb -h ${t.host} -p ${t.port} -U ${t.user} ${t.database}\`, or name another in DATABASE_URL`
  }
  if (has("28P01"))
    return `PostgreSQL at ${where} refused the password for role "${t.user}": correct the user and password in DATABASE_URL`
  if (has("28000")) {
    return `PostgreSQL at ${where} does not let role "${t.user}" in (no such role, or no pg_hba.conf entry for it): create it with \`createuser -h ${t.host} -p ${t.port} ${t.user}\` or allow it in pg_hba.conf`
  }
  if (
    failures.some(
      (f) => typeof f.message === "string" && /timed out|timeout exceeded|connection timeout|ETIMEDOUT/i.test(f.message)
    ) ||
    has("ETIMEDOUT")
  ) {
    return `PostgreSQL at ${where} did not answer in time: check that it runs there and that no firewall drops the connection`
  }
  return undefined
}

export default function Home() {
  return (
    <main>
      <h1>Zed inside a Next.js app</h1>
      <p>
        The analytics API is mounted at <a href="/api/schema/">/api/</a> by <code>app/api/[...zed]/route.ts</code>, and
        all of Zed, for the PostHog SDKs (<code>api_host</code>), at <code>/ingest</code> by{" "}
        <code>app/ingest/[...zed]/route.ts</code>.
      </p>
    </main>
  )
}

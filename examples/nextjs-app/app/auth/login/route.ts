import { SESSION_COOKIE, sessionValue } from "../../../session"

// The app's own sign-in (no password check in this toy); Zed trusts it through `authenticate` in zed.ts.
export async function POST(request: Request) {
  const { email } = (await request.json()) as { email: string }
  return new Response(null, {
    status: 204,
    headers: { "set-cookie": `${SESSION_COOKIE}=${sessionValue(email)}; HttpOnly; SameSite=Lax; Path=/` }
  })
}

import { createServer } from "node:http"

// What the query benches' servers share: Zed's handler with routes of the bench's own (`/__raw`,
// `/__compile`) answering JSON, telling the parent its port and closing Zed when the parent goes;
// and calls of Zed's API in the server's process.

export const serveWithHooks = (zed, routes) => {
  const server = createServer((req, res) => {
    const route = routes[req.url]
    if (route === undefined) return void zed.nodeHandler(req, res)
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () =>
      route(Buffer.concat(chunks).toString("utf8")).then(
        (answer) =>
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify(answer, (_, v) => (typeof v === "bigint" ? Number(v) : v))),
        (error) => res.writeHead(500).end(String(error?.message ?? error))
      )
    )
  }).listen(0, "127.0.0.1", () => process.send({ port: server.address().port }))
  process.on("disconnect", () => server.close(() => zed.close().then(() => process.exit(0))))
}

/** Zed's API called in this process with a personal key; the answer's JSON, or an error. */
export const zedApi = (zed, key) => async (method, path, body) => {
  const response = await zed.handler(
    new Request(`http://bench${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  )
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.json()
}

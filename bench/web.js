// The web app's persons page, from navigation to its table of persons on screen (interactive), in
// headless Chromium with a cold cache, against a bare static page on node:http that fetches the same
// API answer and draws the same rows: the ratio is what the app costs over the least a page can do.
import { createServer, request } from "node:http"
import { cpus } from "node:os"
import { chromium } from "playwright-core"
import { record, startServer } from "./lib.js"

const KEY = "phx_benchmark_key_00000000000000000001"
const TOKEN = "phc_benchmark_token_0000000000000001"
const PERSONS = 200
const RUNS = 7

const BARE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Persons</title></head>
<body><table><tbody id="rows"></tbody></table><script>
fetch("/api/projects/1/persons/?limit=100").then((r) => r.json()).then(({ results }) => {
  document.getElementById("rows").innerHTML = results.map((p) =>
    "<tr><td>" + (p.properties.email ?? p.distinct_ids[0]) + "</td><td>" + p.distinct_ids.join(", ") + "</td></tr>").join("")
})
</script></body></html>`

/** Serves the bare page, and passes /api/ on to Zed, so both pages fetch from their own origin. */
const bareServer = (zedUrl) =>
  new Promise((resolve) => {
    const target = new URL(zedUrl)
    const server = createServer((req, res) => {
      if (!req.url.startsWith("/api/")) return res.writeHead(200, { "content-type": "text/html" }).end(BARE_PAGE)
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode, answer.headers)
          answer.pipe(res)
        }
      )
      req.pipe(upstream)
    }).listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })
    )
  })

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Milliseconds from navigation to `selector` on screen, each run in a fresh context (cold cache). */
const timeToData = async (browser, url, selector) => {
  const times = []
  for (let i = 0; i < RUNS + 1; i++) {
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${KEY}` } })
    const page = await context.newPage()
    const start = performance.now()
    await page.goto(url)
    await page.locator(selector).first().waitFor()
    const elapsed = performance.now() - start
    if (i > 0) times.push(elapsed) // the first run warms Zed and the browser
    await context.close()
  }
  return median(times)
}

export const run = async () => {
  const zed = await startServer("./servers/zed.js", ["pglite"], { BENCH_KEY: KEY, BENCH_TOKEN: TOKEN })
  const batch = Array.from({ length: PERSONS }, (_, i) => ({
    event: "$identify",
    distinct_id: `person-${i}`,
    properties: { $set: { email: `person-${i}@example.com` } }
  }))
  await fetch(`${zed.url}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ api_key: TOKEN, batch })
  })
  const bare = await bareServer(zed.url)
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu"]
  })
  try {
    const app = await timeToData(browser, `${zed.url}/project/1/persons`, "tbody tr")
    const baseline = await timeToData(browser, bare.url, "#rows tr")
    const table = [
      `Run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0].model.trim()}, Node ${process.version}; headless Chromium, cold cache, median of ${RUNS} loads after one warm-up; ${PERSONS} persons, 100 shown.`,
      "",
      "| Page | navigation → rows on screen | vs bare page |",
      "|---|---:|---:|",
      `| Zed web app, /project/1/persons | ${Math.round(app)} ms | ${(app / baseline).toFixed(2)} |`,
      `| bare static HTML on node:http, same API call | ${Math.round(baseline)} ms | 1.00 |`
    ].join("\n")
    record("web", table)
    return table
  } finally {
    await browser.close()
    bare.close()
    await zed.close()
  }
}

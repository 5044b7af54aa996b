// `npm run bench`: runs every benchmark and records its table in docs/performance.md.
import * as clickhouse from "./clickhouse.js"
import * as dashboards from "./dashboards.js"
import * as decide from "./decide.js"
import * as exports from "./exports.js"
import * as ingest from "./ingest.js"
import * as insights from "./insights.js"
import * as memory from "./memory.js"
import * as paths from "./paths.js"
import * as projectsList from "./projects-list.js"
import * as query from "./query.js"
import * as recordings from "./recordings.js"
import * as transformations from "./transformations.js"
import * as web from "./web.js"
import * as webAnalytics from "./webAnalytics.js"

const only = process.argv[2]
for (const [name, bench] of Object.entries({
  "projects-list": projectsList,
  ingest,
  decide,
  query,
  insights,
  paths,
  webAnalytics,
  dashboards,
  recordings,
  transformations,
  clickhouse,
  exports,
  memory,
  web
})) {
  if (only !== undefined && only !== name) continue
  console.log(`## ${name}\n\n${await bench.run()}\n`)
}

// The baseline: a bare node:http server answering with the body it is given, checking only the header.
import { createServer } from "node:http"

const body = process.env.BENCH_BODY
const expected = `Bearer ${process.env.BENCH_KEY}`
const server = createServer((req, res) => {
  if (req.headers.authorization !== expected) {
    res.writeHead(401).end()
    return
  }
  res.writeHead(200, { "content-type": "application/json" })
  res.end(body)
}).listen(0, "127.0.0.1", () => process.send({ port: server.address().port }))

import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"
import type { NewChunk } from "../services/RecordingStore.js"
import type { SnapshotBatch } from "./payload.js"
import { summarize } from "./summary.js"

// A request's rrweb events as stored: in timestamp order, as JSONL lines `[window_id, event]` (the
// line format of PostHog's recording blobs), cut into chunks of bounded size and gzipped, so
// neither ingestion nor replay ever holds more than a chunk of a recording at once.

/** Uncompressed bytes of JSONL past which a chunk is cut. */
export const CHUNK_BYTES = 1024 * 1024

/** Fastest gzip: about three times quicker than the default for a fifth more bytes, and ingest is CPU-bound here. */
const GZIP_LEVEL = 1

const encoder = new TextEncoder()

export const toChunks = (batch: SnapshotBatch, chunkBytes = CHUNK_BYTES): ReadonlyArray<NewChunk> => {
  // Stable: events of the same millisecond keep the order they were recorded in.
  const items = batch.items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => a.item.event.timestamp - b.item.event.timestamp || a.index - b.index)
    .map(({ item }) => item)
  const chunks: Array<NewChunk> = []
  let lines: Array<string> = []
  let start = 0
  let bytes = 0
  const cut = (end: number) => {
    const body = encoder.encode(lines.join(""))
    chunks.push({
      sessionId: batch.sessionId,
      // Content-addressed: a retried request makes the same chunks, stored once.
      key: createHash("sha256").update(body).digest("base64url"),
      distinctId: batch.distinctId,
      source: batch.source,
      library: batch.library,
      data: gzipSync(body, { level: GZIP_LEVEL }),
      summary: summarize(
        items.slice(start, end).map((i) => i.event),
        body.length
      )
    })
    lines = []
    bytes = 0
    start = end
  }
  items.forEach(({ event, windowId }, index) => {
    const line = `${JSON.stringify([windowId, event])}\n`
    const size = Buffer.byteLength(line)
    if (bytes > 0 && bytes + size > chunkBytes) cut(index)
    lines.push(line)
    bytes += size
  })
  cut(items.length)
  return chunks
}

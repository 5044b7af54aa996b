import { createHash } from "node:crypto"
import { Effect } from "effect"
import type { Project } from "../domain/models.js"
import { FlagDefinitions } from "../flags/definitions.js"
import { definitionsDocument } from "../flags/localEvaluation.js"
import { etagMatches } from "./etag.js"
import { Reply } from "./reply.js"
import type { ZedRequest } from "./request.js"

/** The definitions SDKs evaluate locally, with a weak ETag so an unchanged set costs a 304. */
export const definitionsReply = (request: ZedRequest, project: Project) =>
  Effect.gen(function* () {
    const snapshot = yield* (yield* FlagDefinitions).get(project.id)
    const body = JSON.stringify(definitionsDocument(snapshot, project.id, request.url.searchParams.has("send_cohorts")))
    const etag = `W/"${createHash("sha1").update(body).digest("hex")}"`
    const headers = { etag, "cache-control": "private, must-revalidate" }
    if (etagMatches(request.header("if-none-match"), etag)) return Reply.empty(304, headers)
    return new Reply(200, body, { ...headers, "content-type": "application/json" })
  })

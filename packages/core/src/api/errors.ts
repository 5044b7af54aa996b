import { Data } from "effect"
import type { NotReadyReason } from "../lifecycle/Lifecycle.js"
import type { ValidationError } from "../schema/ValidationError.js"
import type { StorageError } from "../services/StorageError.js"
import { Reply } from "./reply.js"

// Failures a request can end in. Handlers fail with these; `errorReply` maps them to HTTP at the edge
// with the body `{type, code, detail, attr}` that PostHog clients expect.

/** The request itself could not be read, e.g. malformed JSON. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly code: string
  readonly detail: string
}> {}

export class NotAuthenticated extends Data.TaggedError("NotAuthenticated")<{}> {}

export class AuthenticationFailed extends Data.TaggedError("AuthenticationFailed")<{ readonly detail: string }> {}

/** A state-changing request signed in by session cookie without the matching `X-CSRFToken` header. */
export class CsrfFailed extends Data.TaggedError("CsrfFailed")<{}> {}

export class PermissionDenied extends Data.TaggedError("PermissionDenied")<{ readonly detail: string }> {}

export class NotFound extends Data.TaggedError("NotFound")<{ readonly detail: string }> {}

export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{
  readonly method: string
  readonly allow: ReadonlyArray<string>
}> {}

export class UnsupportedMediaType extends Data.TaggedError("UnsupportedMediaType")<{
  readonly contentType: string
}> {}

export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limit: number }> {}

/** A query the query API cannot run as written, with where in its text the problem is. */
export class QueryInvalid extends Data.TaggedError("QueryInvalid")<{
  readonly code: string
  readonly detail: string
  readonly start: number | null
  readonly end: number | null
}> {}

/** Over a limit on concurrent work: try again after `retryAfter` seconds. */
export class TooManyRequests extends Data.TaggedError("TooManyRequests")<{
  readonly detail: string
  readonly retryAfter: number
}> {}

/** A feature this install cannot serve (e.g. text-to-SQL without a language model). */
export class NotImplemented extends Data.TaggedError("NotImplemented")<{ readonly detail: string }> {}

/** This instance should not be sent traffic now (readiness), for `reason`. */
export class NotReady extends Data.TaggedError("NotReady")<{ readonly reason: NotReadyReason }> {}

export type ApiError =
  | ValidationError
  | InvalidRequest
  | NotAuthenticated
  | AuthenticationFailed
  | CsrfFailed
  | PermissionDenied
  | NotFound
  | MethodNotAllowed
  | UnsupportedMediaType
  | PayloadTooLarge
  | QueryInvalid
  | TooManyRequests
  | NotImplemented
  | NotReady

export interface ErrorBody {
  readonly type: string
  readonly code: string
  readonly detail: string
  readonly attr: string | null
}

const body = (
  status: number,
  type: string,
  code: string,
  detail: string,
  attr: string | null = null,
  headers: Record<string, string> = {}
) => Reply.json(status, { type, code, detail, attr } satisfies ErrorBody, headers)

const bearer = { "www-authenticate": 'Bearer realm="api"' }

export const errorReply = (error: ApiError): Reply => {
  switch (error._tag) {
    case "ValidationError":
      return body(400, "validation_error", error.code, error.detail, error.attr)
    case "InvalidRequest":
      return body(400, "invalid_request", error.code, error.detail)
    case "NotAuthenticated":
      return body(
        401,
        "authentication_error",
        "not_authenticated",
        "Authentication credentials were not provided.",
        null,
        bearer
      )
    case "AuthenticationFailed":
      return body(401, "authentication_error", "authentication_failed", error.detail, null, bearer)
    case "CsrfFailed":
      return body(403, "authentication_error", "csrf_failed", "CSRF token missing or incorrect.")
    case "PermissionDenied":
      return body(403, "authentication_error", "permission_denied", error.detail)
    case "NotFound":
      return body(404, "invalid_request", "not_found", error.detail)
    case "MethodNotAllowed":
      return body(405, "invalid_request", "method_not_allowed", `Method "${error.method}" not allowed.`, null, {
        allow: error.allow.join(", ")
      })
    case "UnsupportedMediaType":
      return body(
        415,
        "invalid_request",
        "unsupported_media_type",
        `Unsupported media type "${error.contentType}" in request.`
      )
    case "PayloadTooLarge":
      return body(
        413,
        "invalid_request",
        "payload_too_large",
        `Request body is larger than the limit of ${error.limit} bytes.`
      )
    case "QueryInvalid":
      // The position (character offsets into the query) rides along with the usual four fields.
      return Reply.json(400, { ...queryErrorBody(error), start: error.start, end: error.end })
    case "TooManyRequests":
      return Reply.json(429, queryErrorBody(error), { "retry-after": String(error.retryAfter) })
    case "NotImplemented":
      return body(501, "server_error", "not_implemented", error.detail)
    case "NotReady": {
      const [code, detail] = notReady[error.reason]
      return body(503, "server_error", code, detail, null, { "retry-after": String(RETRY_AFTER_SECONDS) })
    }
  }
}

/** How a query that could not be computed is told: a reply's body, or a dashboard tile's error. */
export const queryErrorBody = (error: QueryInvalid | TooManyRequests): ErrorBody =>
  error._tag === "QueryInvalid"
    ? { type: "validation_error", code: error.code, detail: error.detail, attr: null }
    : { type: "throttled_error", code: "throttled", detail: error.detail, attr: null }

const notReady: Record<NotReadyReason, readonly [code: string, detail: string]> = {
  unreachable: ["storage_unreachable", "Storage cannot be reached."],
  read_only: ["storage_read_only", "Storage refuses writes (read-only)."],
  full: ["storage_full", "Storage is out of space."],
  timeout: ["storage_timeout", "Storage did not answer within the storage time limit."],
  failed: ["storage_failed", "Storage failed the readiness probe."],
  shutting_down: ["shutting_down", "This instance is shutting down."]
}

export const serverErrorReply = (): Reply => body(500, "server_error", "error", "A server error occurred.")

/** Seconds a client is asked to wait before trying again while storage is unavailable. */
export const RETRY_AFTER_SECONDS = 5

/** A storage failure: 503 with `Retry-After` while the store is unavailable, else a server error. */
export const storageFailureReply = (error: StorageError, headers: Record<string, string> = {}): Reply =>
  error.unavailable === true
    ? body(503, "server_error", "storage_unavailable", "Storage is unavailable: try again shortly.", null, {
        ...headers,
        "retry-after": String(RETRY_AFTER_SECONDS)
      })
    : body(500, "server_error", "error", "A server error occurred.", null, headers)

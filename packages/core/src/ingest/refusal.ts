import { Data } from "effect"

/** Why capture refuses a request, in PostHog's codes; the edge answers 400, 413 or 401 for them. */
export type CaptureProblem = "invalid_payload" | "payload_too_large" | "invalid_api_key"

/** A capture request refused as a whole: nothing of it is stored. */
export class CaptureRefused extends Data.TaggedError("CaptureRefused")<{
  readonly problem: CaptureProblem
  readonly detail: string
}> {}

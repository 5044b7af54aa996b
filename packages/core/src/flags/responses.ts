import type { StoredFlag } from "../services/FlagStore.js"
import type { FlagResult } from "./model.js"

export type FlagsEndpoint = "decide" | "flags"

export interface FlagsAnswer {
  readonly endpoint: FlagsEndpoint
  /** The `v` query parameter; 0 when absent. */
  readonly version: number
  readonly results: ReadonlyMap<string, FlagResult>
  readonly flags: ReadonlyMap<string, StoredFlag>
  readonly errors: boolean
  readonly quotaLimited: boolean
  /**
   * Remote config keys, as the JSON text of an object: always on /decide, on /flags with
   * `config=true`. Text, because it is the same for every request of a project.
   */
  readonly configJson: string | undefined
  readonly requestId: string
  readonly evaluatedAt: number
}

type Shape = "keys" | "values" | "values-and-payloads" | "detailed"

/** Which response shape an SDK expects from the endpoint and version it called (spec 4.2). */
export const shapeFor = (endpoint: FlagsEndpoint, version: number): Shape =>
  endpoint === "flags"
    ? version >= 2
      ? "detailed"
      : "values-and-payloads"
    : version >= 4
      ? "detailed"
      : version === 3
        ? "values-and-payloads"
        : version === 2
          ? "values"
          : "keys"

const value = (r: FlagResult): boolean | string => (r.enabled ? (r.variant ?? true) : false)

/** The response body (JSON text) for the endpoint and version the SDK called. */
export const flagsResponse = (answer: FlagsAnswer): string => {
  const results = answer.quotaLimited ? [] : [...answer.results.values()]
  const enabled = results.filter((r) => r.enabled)
  const shape = shapeFor(answer.endpoint, answer.version)
  const body: Record<string, unknown> = {
    errorsWhileComputingFlags: answer.errors,
    requestId: answer.requestId,
    evaluatedAt: answer.evaluatedAt
  }
  if (shape === "keys") body["featureFlags"] = enabled.map((r) => r.key)
  else if (shape === "values") body["featureFlags"] = Object.fromEntries(enabled.map((r) => [r.key, value(r)]))
  else if (shape === "values-and-payloads") {
    body["featureFlags"] = Object.fromEntries(results.map((r) => [r.key, value(r)]))
    body["featureFlagPayloads"] = Object.fromEntries(
      enabled.filter((r) => r.payload !== null && r.payload !== undefined).map((r) => [r.key, r.payload])
    )
  } else {
    body["flags"] = Object.fromEntries(
      results.map((r) => {
        const flag = answer.flags.get(r.key)
        return [
          r.key,
          {
            key: r.key,
            enabled: r.enabled,
            variant: r.variant,
            reason: r.reason,
            metadata: {
              id: flag?.id ?? null,
              version: flag?.version ?? null,
              description: flag?.name || null,
              payload: r.enabled ? (r.payload ?? null) : null,
              has_experiment: flag?.has_experiment ?? false
            },
            ...(r.failed ? { failed: true } : {})
          }
        ]
      })
    )
  }
  if (answer.quotaLimited) {
    body["quotaLimited"] = ["feature_flags"]
    if (shape === "values-and-payloads") body["featureFlagPayloads"] = {}
  }
  const json = JSON.stringify(body)
  // Both are non-empty objects: the config's keys go first, then the answer's.
  return answer.configJson === undefined || answer.configJson === "{}"
    ? json
    : `${answer.configJson.slice(0, -1)},${json.slice(1)}`
}

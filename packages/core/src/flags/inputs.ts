import { INITIAL_PROPERTIES } from "../ingest/normalize.js"
import type { FlagInputsResult } from "../services/FlagInputs.js"
import type { FlagSnapshot } from "./definitions.js"
import type { EvaluationContext } from "./model.js"

/** What a flag request asks, decoded. */
export interface FlagRequest {
  readonly distinctId: string
  /** Overrides of stored person properties. */
  readonly personProperties: Readonly<Record<string, unknown>>
  /** Group type name → key. */
  readonly groups: Readonly<Record<string, string>>
  /** Group type name → overrides of stored group properties. */
  readonly groupProperties: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly anonDistinctId: string | undefined
  readonly deviceId: string | undefined
  /** `$geoip_*` of the client address; empty when disabled. */
  readonly geoip: Readonly<Record<string, unknown>>
  readonly runtime: "server" | "client" | undefined
  readonly evaluationContexts: ReadonlyArray<string> | undefined
  readonly flagKeys: ReadonlyArray<string> | undefined
}

const INITIAL_OF: ReadonlyMap<string, string> = new Map(
  INITIAL_PROPERTIES.map((key) => [key, `$initial_${key.replace(/^\$/, "")}`])
)

/**
 * Person properties as flags see them: stored ones overlaid by the request's, then `$initial_X`
 * filled from `X` where missing, then GeoIP for `$geoip_*` keys absent or null.
 */
export const personPropertiesFor = (
  stored: Readonly<Record<string, unknown>> | null,
  request: FlagRequest
): Record<string, unknown> => {
  const properties: Record<string, unknown> = { ...stored, ...request.personProperties }
  // Walks the person's own keys: looking up every absent initial key would cost more.
  for (const key of Object.keys(properties)) {
    const initial = INITIAL_OF.get(key)
    if (initial !== undefined && properties[key] !== undefined && properties[initial] === undefined)
      properties[initial] = properties[key]
  }
  for (const [key, value] of Object.entries(request.geoip)) {
    if (properties[key] === undefined || properties[key] === null) properties[key] = value
  }
  return properties
}

export const evaluationContext = (
  snapshot: FlagSnapshot,
  request: FlagRequest,
  inputs: FlagInputsResult,
  options: { readonly timezone: string; readonly now: Date; readonly inputsFailed: boolean }
): EvaluationContext => {
  const groupProperties = Object.fromEntries(
    Object.entries(request.groups).map(([type, key]) => {
      const index = snapshot.groupTypeIndex.get(type)
      const stored = index === undefined ? undefined : inputs.groupProperties.get(index)?.get(key)
      return [type, { ...stored, ...request.groupProperties[type], $group_key: key }]
    })
  )
  return {
    distinctId: request.distinctId,
    personProperties: personPropertiesFor(inputs.personProperties, request),
    groups: request.groups,
    groupProperties,
    groupTypes: snapshot.groupTypes,
    cohorts: snapshot.cohorts,
    staticCohorts: inputs.staticCohorts,
    // Without the person's stored data no cohort can be decided; flags needing one report failure.
    unavailableCohorts: options.inputsFailed ? new Set(snapshot.cohorts.keys()) : new Set(),
    hashKeyOverrides: inputs.hashKeyOverrides,
    anonDistinctId: request.anonDistinctId,
    deviceId: request.deviceId,
    propertyMatchingVersion: 1,
    timezone: options.timezone,
    now: options.now,
    runtime: request.runtime,
    evaluationContexts: request.evaluationContexts,
    flagKeys: request.flagKeys
  }
}

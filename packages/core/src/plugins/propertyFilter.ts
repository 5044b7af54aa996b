import { isObject } from "../domain/json.js"

/** The plugin's `properties` setting, "email, $set.phone": comma separated, trimmed, blanks dropped. */
export const parsePropertyList = (config: string): string[] =>
  config
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")

const withoutPath = (
  properties: Readonly<Record<string, unknown>>,
  path: ReadonlyArray<string>
): Readonly<Record<string, unknown>> => {
  const [key, ...rest] = path
  if (key === undefined || !Object.hasOwn(properties, key)) return properties
  const copy: Record<string, unknown> = { ...properties }
  if (rest.length === 0) {
    delete copy[key]
    return copy
  }
  const child = properties[key]
  if (!isObject(child)) return properties
  // A computed key, unlike assignment, keeps a key named `__proto__` an own property.
  return { ...copy, [key]: withoutPath(child, rest) }
}

/**
 * PostHog's "Property Filter" plugin as a pure step: each name is a dot-separated path, so `email`
 * removes the top-level property only and `$set.email` the person property; a plain name does not
 * reach into `$set` or `$set_once` (PostHog's plugin does not either: list both to drop both). Missing
 * paths are ignored. Nothing is mutated: objects along a removed path are copied. PostHog's plugin
 * also clears the event's ip for `$ip`; that is the caller's to do, outside the properties.
 */
export const filterProperties = (
  properties: Readonly<Record<string, unknown>>,
  names: ReadonlyArray<string>
): Record<string, unknown> => ({
  ...names.reduce((current, name) => withoutPath(current, name.split(".")), properties)
})

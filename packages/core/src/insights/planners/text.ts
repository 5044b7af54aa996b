// ZedQL text pieces: literals quoted as the grammar reads them, so a value never becomes syntax.

/** A string literal: backslashes and quotes escaped with a backslash. */
export const quote = (value: string): string => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

/** An event or person property, read as text (`properties['$browser']`). */
export const propertyText = (key: string, type: "event" | "person"): string =>
  `toString(${type === "person" ? "person.properties" : "properties"}[${quote(key)}])`

/** An instant as a ZedQL DateTime literal. */
export const instant = (ms: number): string => `toDateTime(${quote(new Date(ms).toISOString())})`

/** Rows any planned statement may return: ZedQL's cap, so that none is cut at the default 100. */
export const ROWS = 50_000

// ZedQL text pieces for the statements still written as text (funnels, recordings, surveys):
// literals quoted as the grammar reads them, so that a value never becomes syntax.

/** A string literal: backslashes and quotes escaped with a backslash. */
export const quote = (value: string): string => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

/** An instant as a ZedQL DateTime literal. */
export const instant = (ms: number): string => `toDateTime(${quote(new Date(ms).toISOString())})`

export const and = (conditions: ReadonlyArray<string>): string =>
  conditions.length === 0 ? "true" : conditions.length === 1 ? conditions[0]! : conditions.map((c) => `(${c})`).join(" AND ")

export const or = (conditions: ReadonlyArray<string>): string =>
  conditions.length === 0 ? "false" : conditions.length === 1 ? conditions[0]! : conditions.map((c) => `(${c})`).join(" OR ")

// Identifiers and the dialect's own constants as ClickHouse writes them (user text is never
// written here: it travels as parameters).

/** An identifier, quoted so any name is safe. */
export const quote = (name: string) => `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``

/** A string literal of the dialect's own (a regular expression, a format): never user text. */
export const literal = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

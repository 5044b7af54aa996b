// Values bound to `{name:Type}` placeholders, for the statements the stores write by hand.

export class Params {
  readonly values: Record<string, unknown> = {}
  private count = 0

  /** A placeholder for `value` as a ClickHouse `type`. */
  bind = (value: unknown, type: string): string => {
    const name = `v${this.count++}`
    this.values[name] = value
    return `{${name}:${type}}`
  }
}

/** A date as ClickHouse reads a DateTime64 in UTC from text. */
export const utcText = (date: Date): string => date.toISOString().slice(0, 23).replace("T", " ")

/** A DateTime64 read back as text in UTC. */
export const fromUtcText = (text: string): Date => new Date(`${text.replace(" ", "T")}Z`)

/** Versions of mirrored rows: microseconds, strictly increasing in this process, so a later write wins. */
let last = 0
export const nextVersion = (): number => {
  last = Math.max(last + 1, Date.now() * 1000)
  return last
}

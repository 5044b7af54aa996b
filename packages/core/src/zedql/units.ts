import type { RExpr } from "./ir.js"
import { ZedQLPrintError } from "./printer.js"

// The date units ZedQL's date functions take (`dateDiff('day', …)`, `date_trunc('week', …)`), in
// any of their spellings, for every dialect.

/** The constant text of an argument (a unit, a format), or a refusal. */
export const constantText = (e: RExpr | undefined, what: string): string => {
  if (e?.kind !== "const" || typeof e.value !== "string") throw new ZedQLPrintError(`${what} must be a constant string`)
  return e.value
}

const UNITS: Readonly<Record<string, string>> = {
  second: "second",
  seconds: "second",
  ss: "second",
  s: "second",
  minute: "minute",
  minutes: "minute",
  mi: "minute",
  n: "minute",
  hour: "hour",
  hours: "hour",
  hh: "hour",
  h: "hour",
  day: "day",
  days: "day",
  dd: "day",
  d: "day",
  week: "week",
  weeks: "week",
  wk: "week",
  ww: "week",
  month: "month",
  months: "month",
  mm: "month",
  m: "month",
  quarter: "quarter",
  quarters: "quarter",
  qq: "quarter",
  q: "quarter",
  year: "year",
  years: "year",
  yyyy: "year",
  yy: "year"
}

export const unitOf = (e: RExpr | undefined): string => {
  const unit = UNITS[constantText(e, "The unit").toLowerCase()]
  if (unit === undefined)
    throw new ZedQLPrintError(
      `Unknown unit '${constantText(e, "The unit")}': use second, minute, hour, day, week, month, quarter or year`
    )
  return unit
}

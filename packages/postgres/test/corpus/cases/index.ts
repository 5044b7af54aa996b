import type { Case } from "./support.js"
import { aggregations, filters, shaping, typed } from "./events.js"
import { arrays, conditionals, json, strings } from "./functions.js"
import { persons, sessions } from "./people.js"
import { ctes, setOperations, subqueries, windows } from "./structure.js"
import { dates } from "./dates.js"

// The ZedQL corpus: queries over the demo data with their results worked out from the generated
// events alone. Times are in the project's time zone, which changes to daylight saving time inside
// the data's span. Every query orders its rows completely, so the order is part of what is checked.

export type { Case }

export const CASES: ReadonlyArray<Case> = [
  ...filters,
  ...aggregations,
  ...shaping,
  ...persons,
  ...sessions,
  ...subqueries,
  ...ctes,
  ...setOperations,
  ...windows,
  ...dates,
  ...strings,
  ...arrays,
  ...conditionals,
  ...json,
  ...typed
]

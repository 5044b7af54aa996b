import { mkdirSync } from "node:fs"
import { Effect, Exit, Layer, Queue } from "effect"
import { inlineParams } from "./inline.js"
import {
  ClickHouse,
  clickhouseError,
  ClickHouseError,
  type QueryResult,
  RESULT_SETTINGS,
  settingsClause
} from "./ClickHouse.js"

// chDB: ClickHouse inside this process, on a data directory. One connection runs its statements one
// after another, so a few connections to the same directory share the work, and one more is kept
// for control statements (KILL QUERY), which must not wait behind the query they stop. Parameters
// are written into the statement (inline.ts).

type ChdbModule = typeof import("chdb")
type Session = InstanceType<ChdbModule["Session"]>

export interface ChdbOptions {
  /** The data directory; created when missing. */
  readonly path: string
  /** Connections running statements at once (default 3). */
  readonly connections?: number
}

const loadChdb = Effect.tryPromise({
  try: () => import("chdb"),
  catch: (cause) =>
    new ClickHouseError({
      code: undefined,
      message: "chDB is not installed: add the optional dependency `chdb` (npm install chdb)",
      cause
    })
})

export const chdbClickHouse = (options: ChdbOptions): Layer.Layer<ClickHouse, ClickHouseError> =>
  Layer.scoped(
    ClickHouse,
    Effect.gen(function* () {
      const chdb = yield* loadChdb
      mkdirSync(options.path, { recursive: true })
      // Every connection opened, so that all are closed with the layer.
      const opened = new Set<Session>()
      yield* Effect.addFinalizer(() => Effect.sync(() => opened.forEach((s) => s.close())))
      const open = () => {
        const session = new chdb.Session(options.path)
        opened.add(session)
        return session
      }
      const retire = (session: Session) => {
        opened.delete(session)
        session.close()
      }
      const control = open()
      const free = yield* Queue.unbounded<Session>()
      yield* Queue.offerAll(free, Array.from({ length: options.connections ?? 3 }, open))

      // A connection whose statement failed (a timeout, say) can hand part of that statement's output
      // to its next one: it is replaced by a new connection.
      const onSession = <A>(isControl: boolean | undefined, run: (session: Session) => Promise<A>) =>
        isControl === true
          ? Effect.tryPromise({ try: () => run(control), catch: clickhouseError })
          : Effect.acquireUseRelease(
              Queue.take(free),
              (session) => Effect.tryPromise({ try: () => run(session), catch: clickhouseError }),
              (session, exit) => Queue.offer(free, Exit.isSuccess(exit) ? session : (retire(session), open()))
            )

      const text = (sql: string, settings: Parameters<typeof settingsClause>[0]) => `${sql}${settingsClause(settings)}`

      return ClickHouse.of({
        engine: "chdb",
        cluster: undefined,
        query: ({ control, params, settings, sql }) =>
          onSession(control, async (session) => {
            const statement = text(sql, { ...RESULT_SETTINGS, ...settings })
            const result = await session.queryAsync(inlineParams(statement, params ?? {}), { format: "JSONCompact" })
            const body = result.text()
            if (body.trim() === "") return { meta: [], data: [] } satisfies QueryResult
            const parsed = JSON.parse(body) as QueryResult
            return { meta: parsed.meta, data: parsed.data }
          }),
        command: ({ control, params, settings, sql }) =>
          onSession(control, async (session) => {
            await session.queryAsync(inlineParams(text(sql, settings), params ?? {}))
          }),
        insert: (table, rows, settings) =>
          rows.length === 0
            ? Effect.void
            : onSession(false, async (session) => {
                await session.insert({
                  table,
                  format: "JSONEachRow",
                  values: Buffer.from(rows.map((row) => JSON.stringify(row)).join("\n")),
                  ...(settings === undefined ? {} : { settings: { ...settings } })
                })
              })
      })
    })
  )

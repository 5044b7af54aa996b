import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { Context, Data, Effect, Layer } from "effect"

// Users' ZedQL and Hog texts are parsed by the grammar's WebAssembly parser on threads of their own.
// The parser's time grows exponentially with some nestings (25 parentheses: a minute) and deep ones
// corrupt its memory: on the main thread either would stop every request, or break every later
// parse. Here a text is measured before it is parsed, a parse past its time ends its thread, and a
// thread whose parser failed is replaced.

export type GrammarRule = "parseSelect" | "parseExpr" | "parseProgram" | "parseFullTemplateString"

export interface GrammarLimits {
  /** Characters a text may have. */
  readonly maxLength: number
  /** Brackets open at once in the text; the parsed tree may nest four times as deep (operators nest too). */
  readonly maxDepth: number
  /** Tokens in the text, and nodes in the parsed tree. */
  readonly maxNodes: number
  /** How long a parse may take before its thread is stopped. */
  readonly timeoutMs: number
  /** Texts waiting for a thread at most; past it, parses are refused as busy. */
  readonly maxQueued: number
}

// Generated insight queries (a funnel: 1,300 tokens, 15 deep) take one to two seconds to parse.
export const DEFAULT_GRAMMAR_LIMITS: GrammarLimits = {
  maxLength: 100_000,
  maxDepth: 64,
  maxNodes: 20_000,
  timeoutMs: 10_000,
  maxQueued: 64
}

/** A text the pool would not parse, or could not within its limits; `busy` when every thread is taken. */
export class GrammarRefused extends Data.TaggedError("GrammarRefused")<{
  readonly limit: "length" | "depth" | "nodes" | "time" | "busy"
  readonly message: string
}> {}

export interface GrammarPool {
  /** The parser's JSON for a text (its own syntax errors included, as JSON). */
  readonly parse: (rule: GrammarRule, text: string) => Effect.Effect<string, GrammarRefused>
  /** Refuses a text over the length, depth or token limit, without parsing it. */
  readonly check: (text: string) => Effect.Effect<void, GrammarRefused>
  readonly close: () => Promise<void>
}

let shared: GrammarPool | undefined

/** The grammar pool: Zed's own, with its configured limits, or else one shared with the default limits. */
export class Grammar extends Context.Reference<Grammar>()("@zed/core/Grammar", {
  defaultValue: (): GrammarPool => (shared ??= makeGrammarPool())
}) {}

/** A pool with these limits for as long as the layer lives. */
export const GrammarLive = (limits: GrammarLimits) =>
  Layer.scoped(
    Grammar,
    Effect.acquireRelease(
      Effect.sync(() => makeGrammarPool(limits)),
      (pool) => Effect.promise(pool.close)
    )
  )

/** Depth of open brackets and number of tokens of a text, skipping strings and comments. */
export const measureText = (text: string): { readonly depth: number; readonly tokens: number } => {
  let depth = 0
  let deepest = 0
  let tokens = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === "'" || c === '"' || c === "`") {
      // Quoted: up to the matching quote, backslash escapes and doubled quotes included.
      i++
      while (i < n && text[i] !== c) i += text[i] === "\\" ? 2 : 1
      i++
      tokens++
    } else if (c === "-" && text[i + 1] === "-") {
      while (i < n && text[i] !== "\n") i++
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      i = end < 0 ? n : end + 2
    } else if (c === "(" || c === "[" || c === "{") {
      if (++depth > deepest) deepest = depth
      tokens++
      i++
    } else if (c === ")" || c === "]" || c === "}") {
      depth--
      tokens++
      i++
    } else if (/\s/.test(c)) {
      i++
    } else if (/[\w$]/.test(c)) {
      while (i < n && /[\w$.]/.test(text[i]!)) i++
      tokens++
    } else {
      tokens++
      i++
    }
  }
  return { depth: deepest, tokens }
}

/** What must hold of a text before a thread parses it. */
const refusalBefore = (text: string, limits: GrammarLimits): GrammarRefused | undefined => {
  if (text.length > limits.maxLength) {
    return new GrammarRefused({
      limit: "length",
      message: `The text is ${text.length} characters long: at most ${limits.maxLength} are allowed`
    })
  }
  const { depth, tokens } = measureText(text)
  if (depth > limits.maxDepth) {
    return new GrammarRefused({
      limit: "depth",
      message: `The text nests ${depth} brackets deep: at most ${limits.maxDepth} are allowed`
    })
  }
  if (tokens > limits.maxNodes) {
    return new GrammarRefused({
      limit: "nodes",
      message: `The text has ${tokens} tokens: at most ${limits.maxNodes} are allowed`
    })
  }
  return undefined
}

interface Answer {
  readonly id: number
  readonly json?: string
  readonly depth?: number
  readonly nodes?: number
  readonly crashed?: string
}

interface Job {
  readonly id: number
  readonly rule: GrammarRule
  readonly text: string
  readonly done: (outcome: string | GrammarRefused) => void
}

interface Thread {
  readonly worker: Worker
  ready: boolean
  job: Job | undefined
  timer: ReturnType<typeof setTimeout> | undefined
  parsed: number
}

/**
 * Parses a thread makes before it is replaced: the grammar's parser caches what it learns of the
 * texts it sees (ANTLR's prediction DFA), and that cache only grows.
 */
const PARSES_PER_THREAD = 10_000

const ENTRY = new URL("./grammarWorker.js", import.meta.url)

/**
 * Parsing threads: all cores but one, which is left to requests (a parse near its time limit keeps
 * its core busy), and at most two.
 */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1))

/** A pool of `size` parsing threads, started when first needed; they never keep the process alive. */
export const makeGrammarPool = (limits: GrammarLimits = DEFAULT_GRAMMAR_LIMITS, size = THREADS): GrammarPool => {
  const threads = new Set<Thread>()
  const queue: Array<Job> = []
  let nextId = 0

  const tooDeep = () => new GrammarRefused({ limit: "depth", message: "The text is nested too deeply to parse" })

  let closed = false

  const finish = (thread: Thread, outcome: string | GrammarRefused) => {
    const job = thread.job
    if (thread.timer !== undefined) clearTimeout(thread.timer)
    thread.job = undefined
    thread.timer = undefined
    job?.done(outcome)
  }

  /**
   * Takes a thread out of the pool for good, and starts its replacement so none waits for a parser
   * to load (a second later, when the thread never got its parser loaded).
   */
  const retire = (thread: Thread) => {
    if (!threads.delete(thread)) return
    void thread.worker.terminate()
    if (closed) return
    if (thread.ready) start()
    else setTimeout(dispatch, 1_000).unref()
  }

  const start = (): Thread => {
    const worker = new Worker(ENTRY)
    worker.unref()
    const thread: Thread = { worker, ready: false, job: undefined, timer: undefined, parsed: 0 }
    threads.add(thread)
    worker.on("message", (message: Answer & { readonly ready?: boolean }) => {
      if (message.ready === true) {
        thread.ready = true
        return dispatch()
      }
      if (thread.job === undefined || message.id !== thread.job.id) return
      if (message.crashed !== undefined) {
        // The thread's parser is broken: nothing more goes to it.
        finish(thread, tooDeep())
        retire(thread)
        return dispatch()
      }
      const depth = message.depth ?? 0
      const nodes = message.nodes ?? 0
      finish(
        thread,
        depth > 4 * limits.maxDepth
          ? tooDeep()
          : nodes > limits.maxNodes
            ? new GrammarRefused({
                limit: "nodes",
                message: `The parsed text has ${nodes} nodes: at most ${limits.maxNodes} are allowed`
              })
            : message.json!
      )
      if (++thread.parsed >= PARSES_PER_THREAD) retire(thread)
      dispatch()
    })
    const gone = () => {
      if (!threads.has(thread)) return
      if (thread.job !== undefined) finish(thread, tooDeep())
      retire(thread)
      dispatch()
    }
    worker.on("exit", gone)
    worker.on("error", gone)
    return thread
  }

  const dispatch = (): void => {
    while (threads.size < size && !closed) start()
    while (queue.length > 0) {
      const idle = [...threads].find((t) => t.ready && t.job === undefined)
      if (idle === undefined) return
      const job = queue.shift()!
      idle.job = job
      idle.timer = setTimeout(() => {
        finish(
          idle,
          new GrammarRefused({
            limit: "time",
            message: `The text took longer than ${limits.timeoutMs / 1000} s to parse: simplify its nesting`
          })
        )
        retire(idle)
        dispatch()
      }, limits.timeoutMs)
      idle.worker.postMessage({ id: job.id, rule: job.rule, text: job.text })
    }
  }

  return {
    check: (text) => {
      const refused = refusalBefore(text, limits)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    },
    parse: (rule, text) =>
      Effect.async<string, GrammarRefused>((resume) => {
        const refused = refusalBefore(text, limits)
        if (refused !== undefined) return resume(Effect.fail(refused))
        if (queue.length >= limits.maxQueued) {
          return resume(
            Effect.fail(
              new GrammarRefused({
                limit: "busy",
                message: "Too many texts are waiting to be parsed: try again shortly"
              })
            )
          )
        }
        const job: Job = {
          id: nextId++,
          rule,
          text,
          done: (outcome) => resume(typeof outcome === "string" ? Effect.succeed(outcome) : Effect.fail(outcome))
        }
        queue.push(job)
        dispatch()
        // A caller that gives up takes its text out of the queue; a parse under way runs to its end.
        return Effect.sync(() => {
          const at = queue.indexOf(job)
          if (at >= 0) queue.splice(at, 1)
        })
      }),
    close: async () => {
      closed = true
      queue.length = 0
      await Promise.all([...threads].map((thread) => thread.worker.terminate()))
      threads.clear()
    }
  }
}

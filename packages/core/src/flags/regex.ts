// `regex`/`not_regex` patterns are written for the flags service, which runs them on Rust's `regex`
// crate: Unicode-aware and linear-time (fancy_regex only backtracks for lookaround and
// backreferences, with a 10k-step limit). This module parses that syntax and searches with a Pike VM
// (no backtracking, so no pattern can hang evaluation). Patterns with lookaround or backreferences
// run on JavaScript's RegExp instead, with a guard standing in for the backtrack limit.

import { makeBoundedMap } from "../cache/bounded.js"

/** Fancy patterns that can backtrack exponentially are not run on inputs longer than this. */
export const RISKY_PATTERN_INPUT_LIMIT = 20
/** Longer inputs are not searched at all (treated as no match, like a hit backtrack limit). */
export const REGEX_INPUT_LIMIT = 65_536
/** Bound on program size × input length for one search. */
const WORK_LIMIT = 50_000_000
const PROGRAM_LIMIT = 10_000

// --- Syntax -----------------------------------------------------------------------------------

type CharTest = (cp: number) => boolean
type AssertKind =
  | "start"
  | "end"
  | "line-start"
  | "line-end"
  | "word"
  | "not-word"
  | "word-start"
  | "word-end"
  | "word-start-half"
  | "word-end-half"

type Node =
  | { readonly type: "char"; readonly test: CharTest }
  | { readonly type: "assert"; readonly kind: AssertKind }
  | { readonly type: "concat"; readonly items: ReadonlyArray<Node> }
  | { readonly type: "alt"; readonly items: ReadonlyArray<Node> }
  | { readonly type: "repeat"; readonly node: Node; readonly min: number; readonly max: number | undefined }

interface Flags {
  readonly i: boolean
  readonly m: boolean
  readonly s: boolean
  readonly x: boolean
}

/** The pattern needs backtracking (lookaround, backreferences): not for the VM. */
class Fancy extends Error {}
/** The service would reject the pattern: neither operator matches. */
class Invalid extends Error {}

const unicode = (source: string): CharTest => {
  const regex = new RegExp(`^[${source}]$`, "u")
  // Most input is ASCII: answer it from a table.
  const ascii = Array.from({ length: 128 }, (_, cp) => regex.test(String.fromCharCode(cp)))
  return (cp) => (cp < 128 ? ascii[cp]! : regex.test(String.fromCodePoint(cp)))
}
// Rust's Unicode-aware Perl classes.
const DIGIT = unicode("\\p{Nd}")
const WORD = unicode("\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}")
const SPACE = unicode("\\p{White_Space}")

const POSIX: Record<string, CharTest> = {
  alnum: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  alpha: (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122),
  ascii: (c) => c <= 0x7f,
  blank: (c) => c === 32 || c === 9,
  cntrl: (c) => c <= 31 || c === 127,
  digit: (c) => c >= 48 && c <= 57,
  graph: (c) => c >= 33 && c <= 126,
  lower: (c) => c >= 97 && c <= 122,
  print: (c) => c >= 32 && c <= 126,
  punct: (c) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126),
  space: (c) => c === 32 || (c >= 9 && c <= 13),
  upper: (c) => c >= 65 && c <= 90,
  word: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95,
  xdigit: (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
}

/** `\p{…}` through JavaScript's property escapes, trying Rust's shorthand spellings. */
const property = (name: string): CharTest => {
  const cleaned = name.replace(/[\s_-]/g, "")
  const candidates = [name, `Script=${name}`, `General_Category=${name}`, cleaned]
  const eq = name.indexOf("=") === -1 ? name.indexOf(":") : name.indexOf("=")
  if (eq !== -1) candidates.unshift(`${name.slice(0, eq).trim()}=${name.slice(eq + 1).trim()}`)
  for (const candidate of candidates) {
    try {
      return unicode(`\\p{${candidate}}`)
    } catch {
      // Next spelling.
    }
  }
  throw new Invalid()
}

const not =
  (test: CharTest): CharTest =>
  (cp) =>
    !test(cp)

const caseVariants = (cp: number): Array<number> => {
  const ch = String.fromCodePoint(cp)
  const variants = new Set([cp])
  for (const other of [ch.toLowerCase(), ch.toUpperCase()])
    if ([...other].length === 1) variants.add(other.codePointAt(0)!)
  return [...variants]
}

/** Simple case folding: a code point matches when it or one of its case variants does. */
const caseless =
  (test: CharTest): CharTest =>
  (cp) =>
    caseVariants(cp).some(test)

class Parser {
  private pos = 0
  private groups = 0

  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation({ i: false, m: false, s: false, x: false })
    if (this.pos < this.src.length) throw new Invalid()
    return node
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset]
  }

  private skipVerbose(flags: Flags): void {
    if (!flags.x) return
    for (;;) {
      const c = this.peek()
      if (c !== undefined && /\s/.test(c)) this.pos++
      else if (c === "#") {
        while (this.pos < this.src.length && this.src[this.pos] !== "\n") this.pos++
      } else return
    }
  }

  /** Alternatives until ")" or the end; `(?flags)` changes the flags for the rest of the group. */
  private alternation(initial: Flags): Node {
    const flags = { current: initial }
    const branches: Array<Node> = [this.concatenation(flags)]
    while (this.peek() === "|") {
      this.pos++
      branches.push(this.concatenation(flags))
    }
    return branches.length === 1 ? branches[0]! : { type: "alt", items: branches }
  }

  private concatenation(flags: { current: Flags }): Node {
    const items: Array<Node> = []
    for (;;) {
      this.skipVerbose(flags.current)
      const c = this.peek()
      if (c === undefined || c === "|" || c === ")") break
      if (c === "(" && this.peek(1) === "?") {
        const directive = /^\(\?([imsxuUR-]*)\)/.exec(this.src.slice(this.pos))
        if (directive !== null) {
          this.pos += directive[0].length
          flags.current = applyFlags(flags.current, directive[1]!)
          continue
        }
      }
      const atom = this.atom(flags.current)
      items.push(this.quantified(atom, flags.current))
    }
    return items.length === 1 ? items[0]! : { type: "concat", items }
  }

  private quantified(atom: Node, flags: Flags): Node {
    let node = atom
    for (;;) {
      this.skipVerbose(flags)
      const c = this.peek()
      let min: number
      let max: number | undefined
      if (c === "*") [min, max] = [0, undefined]
      else if (c === "+") [min, max] = [1, undefined]
      else if (c === "?") [min, max] = [0, 1]
      else if (c === "{") {
        const counted = /^\{\s*(\d+)\s*(?:(,)\s*(\d*)\s*)?\}/.exec(this.src.slice(this.pos))
        if (counted === null) throw new Invalid()
        min = Number(counted[1])
        max = counted[2] === undefined ? min : counted[3] === "" ? undefined : Number(counted[3])
        if ((max !== undefined && max < min) || min > 1000 || (max ?? 0) > 1000) throw new Invalid()
        this.pos += counted[0].length - 1
      } else return node
      this.pos++
      // Lazy and possessive-looking suffixes: laziness changes nothing for a yes/no search.
      if (this.peek() === "?") this.pos++
      node = { type: "repeat", node, min, max }
    }
  }

  private atom(flags: Flags): Node {
    const c = this.peek()!
    switch (c) {
      case "(":
        return this.group(flags)
      case "[":
        return this.charClass(flags)
      case ".":
        this.pos++
        return { type: "char", test: flags.s ? () => true : (cp) => cp !== 10 }
      case "^":
        this.pos++
        return { type: "assert", kind: flags.m ? "line-start" : "start" }
      case "$":
        this.pos++
        return { type: "assert", kind: flags.m ? "line-end" : "end" }
      case "\\":
        return this.escape(flags)
      case "*":
      case "+":
      case "?":
      case "{":
        throw new Invalid()
      default: {
        const cp = this.src.codePointAt(this.pos)!
        this.pos += cp > 0xffff ? 2 : 1
        return this.literal(cp, flags)
      }
    }
  }

  private literal(cp: number, flags: Flags): Node {
    if (!flags.i) return { type: "char", test: (x) => x === cp }
    const variants = caseVariants(cp)
    return { type: "char", test: (x) => variants.includes(x) || caseVariants(x).includes(cp) }
  }

  private group(flags: Flags): Node {
    this.pos++
    let inner = flags
    if (this.peek() === "?") {
      const rest = this.src.slice(this.pos)
      const named = /^\?P?<([A-Za-z_][A-Za-z0-9_.[\]]*)>/.exec(rest)
      const scoped = /^\?([imsxuUR-]*):/.exec(rest)
      if (named !== null) this.pos += named[0].length
      else if (scoped !== null) {
        this.pos += scoped[0].length
        inner = applyFlags(flags, scoped[1]!)
      } else if (/^\?(=|!|<=|<!)/.test(rest)) throw new Fancy()
      else throw new Invalid()
    }
    if (++this.groups > 1000) throw new Invalid()
    const node = this.alternation(inner)
    if (this.peek() !== ")") throw new Invalid()
    this.pos++
    return node
  }

  /** One escape outside a class: a character test, an assertion, or a literal. */
  private escape(flags: Flags): Node {
    const c = this.peek(1)
    if (c === undefined) throw new Invalid()
    if (/[1-9]/.test(c) || c === "k") throw new Fancy()
    const assertions: Record<string, AssertKind> = {
      A: "start",
      z: "end",
      b: "word",
      B: "not-word",
      "<": "word-start",
      ">": "word-end"
    }
    const kind = assertions[c]
    if (kind !== undefined) {
      this.pos += 2
      if (c === "b" && this.peek() === "{") {
        const special = /^\{(start|end|start-half|end-half)\}/.exec(this.src.slice(this.pos))
        if (special === null) throw new Invalid()
        this.pos += special[0].length
        return { type: "assert", kind: `word-${special[1]}` as AssertKind }
      }
      return { type: "assert", kind }
    }
    return { type: "char", test: this.escapeTest(flags) }
  }

  /**
   * An escape that stands for characters (also valid inside a class), case-insensitive already
   * when the flag is on; `pos` is at the backslash.
   */
  private escapeTest(flags: Flags): CharTest {
    const c = this.peek(1)!
    this.pos += 2
    switch (c) {
      case "d":
        return DIGIT
      case "D":
        return not(DIGIT)
      case "w":
        return WORD
      case "W":
        return not(WORD)
      case "s":
        return SPACE
      case "S":
        return not(SPACE)
      case "p":
      case "P": {
        let name: string
        if (this.peek() === "{") {
          const end = this.src.indexOf("}", this.pos)
          if (end === -1) throw new Invalid()
          name = this.src.slice(this.pos + 1, end)
          this.pos = end + 1
        } else {
          name = this.peek() ?? ""
          if (name === "") throw new Invalid()
          this.pos++
        }
        const test = flags.i ? caseless(property(name)) : property(name)
        return c === "p" ? test : not(test)
      }
      default: {
        const cp = this.escapedCodePoint(c)
        return flags.i ? caseless((x) => x === cp) : (x) => x === cp
      }
    }
  }

  private escapedCodePoint(c: string): number {
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, a: 7 }
    if (simple[c] !== undefined) return simple[c]!
    if (c === "x" || c === "u" || c === "U") {
      const braced = /^\{([0-9A-Fa-f]{1,8})\}/.exec(this.src.slice(this.pos))
      const fixed = new RegExp(`^[0-9A-Fa-f]{${c === "x" ? 2 : c === "u" ? 4 : 8}}`).exec(this.src.slice(this.pos))
      const digits = braced?.[1] ?? fixed?.[0]
      if (digits === undefined) throw new Invalid()
      this.pos += (braced?.[0] ?? fixed![0]).length
      const cp = Number.parseInt(digits, 16)
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new Invalid()
      return cp
    }
    // Any other non-alphanumeric ASCII character may be escaped to stand for itself.
    if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e ]$/.test(c)) return c.codePointAt(0)!
    throw new Invalid()
  }

  private charClass(flags: Flags): Node {
    this.pos++
    return { type: "char", test: this.classBody(flags) }
  }

  /**
   * `[…]` after the opening bracket: items, ranges, POSIX classes, nested classes, `&&`/`--`/`~~`.
   * Case folding applies to the set before negation, so `(?i)[^a]` excludes "A" too.
   */
  private classBody(flags: Flags): CharTest {
    let negated = false
    if (this.peek() === "^") {
      negated = true
      this.pos++
    }
    let result: CharTest | undefined
    let op: "&&" | "--" | "~~" | undefined
    let items: Array<CharTest> = []
    let first = true
    const union =
      (tests: Array<CharTest>): CharTest =>
      (cp) =>
        tests.some((t) => t(cp))
    const combine = () => {
      const current = union(items)
      if (result === undefined) result = current
      else {
        const left = result
        result =
          op === "&&"
            ? (cp) => left(cp) && current(cp)
            : op === "--"
              ? (cp) => left(cp) && !current(cp)
              : (cp) => left(cp) !== current(cp)
      }
      items = []
    }
    for (;;) {
      if (flags.x) while (this.peek() !== undefined && /\s/.test(this.peek()!)) this.pos++
      const c = this.peek()
      if (c === undefined) throw new Invalid()
      if (c === "]" && !first) {
        this.pos++
        break
      }
      first = false
      const two = this.src.slice(this.pos, this.pos + 2)
      if (two === "&&" || two === "--" || two === "~~") {
        combine()
        op = two
        this.pos += 2
        continue
      }
      if (c === "[") {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos))
        if (posix !== null) {
          const test = POSIX[posix[2]!]
          if (test === undefined) throw new Invalid()
          items.push(posix[1] === "^" ? not(test) : test)
          this.pos += posix[0].length
        } else {
          this.pos++
          items.push(this.classBody(flags))
        }
        continue
      }
      const start = this.classAtom(flags)
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined && typeof start === "number") {
        this.pos++
        const end = this.classAtom(flags)
        if (typeof end !== "number" || end < start) throw new Invalid()
        items.push((cp) => cp >= start && cp <= end)
      } else items.push(typeof start === "number" ? (cp) => cp === start : start)
    }
    combine()
    const test = flags.i ? caseless(result!) : result!
    return negated ? not(test) : test
  }

  /** A single code point (for ranges) or a class escape such as `\d`. */
  private classAtom(flags: Flags): number | CharTest {
    const c = this.peek()!
    if (c === "\\") {
      const next = this.peek(1)
      if (next !== undefined && "dDwWsSpP".includes(next)) return this.escapeTest(flags)
      if (next === undefined) throw new Invalid()
      this.pos += 2
      // Inside a class "\b" is a backspace and "\-" a hyphen.
      if (next === "b") return 8
      if (next === "-") return 45
      return this.escapedCodePoint(next)
    }
    const cp = this.src.codePointAt(this.pos)!
    this.pos += cp > 0xffff ? 2 : 1
    return cp
  }
}

const applyFlags = (flags: Flags, spec: string): Flags => {
  const next = { ...flags }
  let on = true
  for (const f of spec) {
    if (f === "-") on = false
    else if (f === "i" || f === "m" || f === "s" || f === "x") next[f] = on
    // "u" off would mean bytes, "R" CRLF mode: both need the fallback.
    else if ((f === "u" && !on) || f === "R") throw new Fancy()
  }
  return next
}

// --- Program ----------------------------------------------------------------------------------

type Instruction =
  | { op: "char"; test: CharTest; next: number }
  | { op: "split"; a: number; b: number }
  | { op: "jmp"; to: number }
  | { op: "assert"; kind: AssertKind; next: number }
  | { op: "match" }

const compile = (root: Node): Array<Instruction> => {
  const program: Array<Instruction> = []
  const emit = (instruction: Instruction): number => {
    // Too big for the VM (e.g. nested counted repetitions): leave it to RegExp and its guard.
    if (program.length >= PROGRAM_LIMIT) throw new Fancy()
    program.push(instruction)
    return program.length - 1
  }
  /** Emits code for `node`, continuing at whatever comes next (patched through `link`). */
  const gen = (node: Node): void => {
    switch (node.type) {
      case "char":
        emit({ op: "char", test: node.test, next: program.length + 1 })
        return
      case "assert":
        emit({ op: "assert", kind: node.kind, next: program.length + 1 })
        return
      case "concat":
        for (const item of node.items) gen(item)
        return
      case "alt": {
        const jumps: Array<number> = []
        node.items.forEach((item, index) => {
          if (index < node.items.length - 1) {
            const split = emit({ op: "split", a: program.length + 1, b: -1 })
            gen(item)
            jumps.push(emit({ op: "jmp", to: -1 }))
            ;(program[split] as { b: number }).b = program.length
          } else gen(item)
        })
        for (const jump of jumps) (program[jump] as { to: number }).to = program.length
        return
      }
      case "repeat": {
        for (let i = 0; i < node.min; i++) gen(node.node)
        if (node.max === undefined) {
          const split = emit({ op: "split", a: program.length + 1, b: -1 })
          gen(node.node)
          emit({ op: "jmp", to: split })
          ;(program[split] as { b: number }).b = program.length
        } else {
          const splits: Array<number> = []
          for (let i = node.min; i < node.max; i++) {
            splits.push(emit({ op: "split", a: program.length + 1, b: -1 }))
            gen(node.node)
          }
          for (const split of splits) (program[split] as { b: number }).b = program.length
        }
        return
      }
    }
  }
  gen(root)
  emit({ op: "match" })
  return program
}

const isWord = (cp: number | undefined): boolean => cp !== undefined && WORD(cp)

const holds = (kind: AssertKind, prev: number | undefined, next: number | undefined): boolean => {
  switch (kind) {
    case "start":
      return prev === undefined
    case "end":
      return next === undefined
    case "line-start":
      return prev === undefined || prev === 10
    case "line-end":
      return next === undefined || next === 10
    case "word":
      return isWord(prev) !== isWord(next)
    case "not-word":
      return isWord(prev) === isWord(next)
    case "word-start":
      return !isWord(prev) && isWord(next)
    case "word-end":
      return isWord(prev) && !isWord(next)
    case "word-start-half":
      return !isWord(prev)
    case "word-end-half":
      return !isWord(next)
  }
}

/** Pike VM: all threads advance together over the input, so time is program × input at worst. */
const runProgram = (program: ReadonlyArray<Instruction>, input: ReadonlyArray<number>): boolean => {
  let current: Array<number> = []
  let next: Array<number> = []
  const seen = new Int32Array(program.length).fill(-1)
  let generation = 0
  let matched = false
  const add = (list: Array<number>, pc: number, prev: number | undefined, cp: number | undefined): void => {
    const stack = [pc]
    while (stack.length > 0) {
      const at = stack.pop()!
      if (seen[at] === generation) continue
      seen[at] = generation
      const instruction = program[at]!
      switch (instruction.op) {
        case "jmp":
          stack.push(instruction.to)
          break
        case "split":
          stack.push(instruction.b, instruction.a)
          break
        case "assert":
          if (holds(instruction.kind, prev, cp)) stack.push(instruction.next)
          break
        case "match":
          matched = true
          break
        case "char":
          list.push(at)
      }
    }
  }
  for (let i = 0; i <= input.length; i++) {
    const prev = input[i - 1]
    const cp = input[i]
    // Unanchored search: a new thread starts at every position.
    add(current, 0, prev, cp)
    if (matched) return true
    if (cp === undefined) break
    generation++
    for (const pc of current) {
      const instruction = program[pc] as { test: CharTest; next: number }
      if (instruction.test(cp)) add(next, instruction.next, cp, input[i + 1])
    }
    if (matched) return true
    ;[current, next] = [next, []]
  }
  return false
}

// --- Fallback for fancy patterns ----------------------------------------------------------------

/** Rust syntax for JavaScript: `(?P<`, `\A`, `\z`, leading flags, and "." excluding only "\n". */
const toJavaScript = (pattern: string): RegExp | null => {
  let flags = ""
  let rest = pattern
  const inline = /^\(\?([ims]+)\)/.exec(rest)
  if (inline !== null) {
    flags = [...new Set(inline[1]!)].join("")
    rest = rest.slice(inline[0].length)
  }
  let out = ""
  let inClass = false
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!
    if (c === "\\") {
      const n = rest[i + 1]
      if (n === undefined) return null
      out += !inClass && n === "A" ? "^" : !inClass && n === "z" ? "$(?![\\s\\S])" : c + n
      i++
    } else if (inClass) {
      if (c === "]") inClass = false
      out += c
    } else if (c === "[") {
      inClass = true
      out += c
      if (rest[i + 1] === "^") out += rest[++i]
      if (rest[i + 1] === "]") out += rest[++i]
    } else if (rest.startsWith("(?P<", i)) {
      out += "(?<"
      i += 3
    } else out += c === "." && !flags.includes("s") ? "[^\\n]" : c
  }
  try {
    return new RegExp(out, flags)
  } catch {
    return null
  }
}

/** A group with a quantifier inside, itself quantified, e.g. `(a+)+`: exponential on some inputs. */
const isRisky = (source: string): boolean => {
  const stack: Array<boolean> = []
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "\\") {
      i++
      if (/[1-9k]/.test(source[i] ?? "")) return true
    } else if (inClass) {
      if (c === "]") inClass = false
    } else if (c === "[") inClass = true
    else if (c === "(") {
      stack.push(false)
      if (source[i + 1] === "?") {
        const kind = source[i + 2]
        const after = source[i + 3]
        i =
          kind === "<" && after !== "=" && after !== "!"
            ? Math.max(source.indexOf(">", i), i + 2)
            : kind === "<"
              ? i + 3
              : i + 2
      }
    } else if (c === ")") {
      const quantifiedInside = stack.pop() ?? false
      const next = source[i + 1]
      const quantified = next === "*" || next === "+" || next === "{" || next === "?"
      if (quantifiedInside && quantified && next !== "?") return true
      if ((quantifiedInside || quantified) && stack.length > 0) stack[stack.length - 1] = true
    } else if ((c === "*" || c === "+" || c === "?" || c === "{") && stack.length > 0) stack[stack.length - 1] = true
  }
  return false
}

// --- Entry points -------------------------------------------------------------------------------

export type CompiledPattern =
  | { readonly engine: "vm"; readonly program: ReadonlyArray<Instruction> }
  | { readonly engine: "js"; readonly regex: RegExp; readonly risky: boolean }

/**
 * Compiled patterns by their text: flag definitions bring the same few again on every evaluation.
 * At most 1,000 of them and about 4 MB, a compiled pattern counted as eight bytes per character of
 * its text; past either, the least recently used go first.
 */
const cache = makeBoundedMap<string, CompiledPattern | null>({
  maxEntries: 1000,
  maxWeight: 4 * 1024 * 1024,
  weigh: (_, pattern) => 64 + pattern.length * 8
})

const build = (pattern: string): CompiledPattern | null => {
  try {
    return { engine: "vm", program: compile(new Parser(pattern).parse()) }
  } catch (error) {
    if (error instanceof Invalid) return null
    if (!(error instanceof Fancy)) throw error
  }
  const regex = toJavaScript(pattern)
  return regex === null ? null : { engine: "js", regex, risky: isRisky(pattern) }
}

/** The compiled pattern, or null when the service would reject it (no match for either operator). */
export const compilePattern = (pattern: string): CompiledPattern | null => {
  const cached = cache.get(pattern)
  if (cached !== undefined) return cached
  const compiled = build(pattern)
  cache.set(pattern, compiled)
  return compiled
}

/** Unanchored search; undefined when the input is too long to search (treated as no match). */
export const searchPattern = (compiled: CompiledPattern, input: string): boolean | undefined => {
  if (input.length > REGEX_INPUT_LIMIT) return undefined
  if (compiled.engine === "vm") {
    if (compiled.program.length * input.length > WORK_LIMIT) return undefined
    return runProgram(
      compiled.program,
      Array.from(input, (ch) => ch.codePointAt(0)!)
    )
  }
  if (compiled.risky && input.length > RISKY_PATTERN_INPUT_LIMIT) return undefined
  compiled.regex.lastIndex = 0
  return compiled.regex.test(input)
}

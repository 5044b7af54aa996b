// Semantic versions as the flags service reads them: the Rust `semver` crate (strict SemVer 2.0,
// prerelease ordering, build metadata part of equality) after PostHog's canonicalization.

export interface Version {
  readonly major: bigint
  readonly minor: bigint
  readonly patch: bigint
  /** Dot-separated prerelease identifiers, "" when none. */
  readonly pre: string
  readonly build: string
}

const IDENTIFIER = /^[0-9A-Za-z-]+$/
const DIGITS = /^[0-9]+$/
const U64_MAX = 0xffffffffffffffffn

/** A major/minor/patch number: digits, no leading zero, fits a u64. */
const numeric = (text: string): bigint | undefined => {
  if (!DIGITS.test(text) || (text.length > 1 && text.startsWith("0"))) return undefined
  const value = BigInt(text)
  return value > U64_MAX ? undefined : value
}

const validPre = (pre: string): boolean =>
  pre
    .split(".")
    .every((part) => IDENTIFIER.test(part) && !(DIGITS.test(part) && part.length > 1 && part.startsWith("0")))

const validBuild = (build: string): boolean => build.split(".").every((part) => IDENTIFIER.test(part))

/** Strict `Version::parse`: `MAJOR.MINOR.PATCH[-PRE][+BUILD]`, nothing else. */
export const parseVersion = (text: string): Version | undefined => {
  const plus = text.indexOf("+")
  const build = plus === -1 ? "" : text.slice(plus + 1)
  const head = plus === -1 ? text : text.slice(0, plus)
  const dash = head.indexOf("-")
  const pre = dash === -1 ? "" : head.slice(dash + 1)
  const core = dash === -1 ? head : head.slice(0, dash)
  if ((plus !== -1 && !validBuild(build)) || (dash !== -1 && !validPre(pre))) return undefined
  const parts = core.split(".")
  if (parts.length !== 3) return undefined
  const [major, minor, patch] = parts.map(numeric)
  if (major === undefined || minor === undefined || patch === undefined) return undefined
  return { major, minor, patch, pre, build }
}

const stripLeadingZeros = (part: string): string => {
  if (part === "" || !DIGITS.test(part)) return part
  const trimmed = part.replace(/^0+/, "")
  return trimmed === "" ? "0" : trimmed
}

/** The service's `normalize_version_string`: strip one lowercase `v`, then whitespace (in that order). */
export const normalizeVersionText = (text: string): string => (text.startsWith("v") ? text.slice(1) : text).trim()

/**
 * `canonicalize_version_string`: pad the numeric core to three components ("3.10" → "3.10.0") and
 * strip leading zeros from numeric ones ("3.08" → "3.8"); the prerelease/build suffix is untouched.
 */
export const canonicalizeVersionText = (text: string): string => {
  const cut = text.search(/[-+]/)
  const core = cut === -1 ? text : text.slice(0, cut)
  const suffix = cut === -1 ? "" : text.slice(cut)
  const parts = core.split(".").map(stripLeadingZeros)
  while (parts.length < 3) parts.push("0")
  return parts.join(".") + suffix
}

/** A property or filter value as a version the way the service reads it, or undefined. */
export const toVersion = (text: string): Version | undefined =>
  parseVersion(canonicalizeVersionText(normalizeVersionText(text)))

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** SemVer prerelease precedence; an empty prerelease ranks above any other. */
export const comparePre = (a: string, b: string): number => {
  if (a === b) return 0
  if (a === "") return 1
  if (b === "") return -1
  const left = a.split(".")
  const right = b.split(".")
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const l = left[i]!
    const r = right[i]!
    const ln = DIGITS.test(l)
    const rn = DIGITS.test(r)
    const order = ln && rn ? compareBig(BigInt(l), BigInt(r)) : ln ? -1 : rn ? 1 : compareText(l, r)
    if (order !== 0) return order
  }
  return left.length - right.length === 0 ? 0 : left.length < right.length ? -1 : 1
}

/** The semver crate orders build metadata too (so that Ord agrees with Eq): "" < anything. */
const compareBuild = (a: string, b: string): number => {
  const left = a.split(".")
  const right = b.split(".")
  for (let i = 0; i < left.length; i++) {
    const l = left[i]!
    const r = right[i]
    if (r === undefined) return 1
    const ln = DIGITS.test(l) || l === ""
    const rn = DIGITS.test(r) || r === ""
    if (ln && !rn) return -1
    if (!ln && rn) return 1
    if (ln && rn) {
      const lv = l.replace(/^0+/, "")
      const rv = r.replace(/^0+/, "")
      const order = lv.length - rv.length || compareText(lv, rv) || l.length - r.length
      if (order !== 0) return order < 0 ? -1 : 1
    } else {
      const order = compareText(l, r)
      if (order !== 0) return order
    }
  }
  return right.length > left.length ? -1 : 0
}

export const compareVersions = (a: Version, b: Version): number =>
  compareBig(a.major, b.major) ||
  compareBig(a.minor, b.minor) ||
  compareBig(a.patch, b.patch) ||
  comparePre(a.pre, b.pre) ||
  compareBuild(a.build, b.build)

// Version requirements (`VersionReq`), used for the tilde, caret and wildcard operators.

type Op = "=" | ">" | ">=" | "<" | "<=" | "~" | "^" | "*"

interface Comparator {
  readonly op: Op
  readonly major: bigint
  readonly minor: bigint | undefined
  readonly patch: bigint | undefined
  readonly pre: string
}

export interface VersionReq {
  readonly comparators: ReadonlyArray<Comparator>
}

const isWildcard = (part: string): boolean => part === "*" || part === "x" || part === "X"

const parseComparator = (input: string): Comparator | undefined => {
  const opMatch = /^(>=|<=|=|>|<|~|\^)?\s*/.exec(input)!
  let op: Op | undefined = opMatch[1] as Op | undefined
  let text = input.slice(opMatch[0].length)
  // Build metadata is accepted and ignored in requirements.
  const plus = text.indexOf("+")
  if (plus !== -1) {
    if (!validBuild(text.slice(plus + 1))) return undefined
    text = text.slice(0, plus)
  }
  const dash = text.indexOf("-")
  const pre = dash === -1 ? "" : text.slice(dash + 1)
  const core = dash === -1 ? text : text.slice(0, dash)
  if (dash !== -1 && !validPre(pre)) return undefined
  const parts = core.split(".")
  if (parts.length > 3) return undefined
  const major = numeric(parts[0]!)
  if (major === undefined) return undefined
  let minor: bigint | undefined
  let patch: bigint | undefined
  let wildcard = false
  for (const [index, part] of parts.slice(1).entries()) {
    if (isWildcard(part)) {
      wildcard = true
      continue
    }
    // A number after a wildcard ("1.*.3") is rejected.
    if (wildcard) return undefined
    const value = numeric(part)
    if (value === undefined) return undefined
    if (index === 0) minor = value
    else patch = value
  }
  // A prerelease or build needs a full version.
  if ((dash !== -1 || plus !== -1) && patch === undefined) return undefined
  if (wildcard && op === undefined) op = "*"
  return { op: op ?? "^", major, minor, patch, pre }
}

/** `VersionReq::parse`: comma-separated comparators; "*" alone matches every release. */
export const parseVersionReq = (text: string): VersionReq | undefined => {
  const trimmed = text.trim()
  if (trimmed === "") return undefined
  if (isWildcard(trimmed)) return { comparators: [] }
  const comparators: Array<Comparator> = []
  for (const piece of trimmed.split(",")) {
    const comparator = parseComparator(piece.trim())
    if (comparator === undefined) return undefined
    comparators.push(comparator)
  }
  return { comparators }
}

const exact = (c: Comparator, v: Version): boolean =>
  v.major === c.major &&
  (c.minor === undefined || v.minor === c.minor) &&
  (c.patch === undefined || v.patch === c.patch) &&
  v.pre === c.pre

const greater = (c: Comparator, v: Version): boolean => {
  if (v.major !== c.major) return v.major > c.major
  if (c.minor === undefined) return false
  if (v.minor !== c.minor) return v.minor > c.minor
  if (c.patch === undefined) return false
  if (v.patch !== c.patch) return v.patch > c.patch
  return comparePre(v.pre, c.pre) > 0
}

const less = (c: Comparator, v: Version): boolean => {
  if (v.major !== c.major) return v.major < c.major
  if (c.minor === undefined) return false
  if (v.minor !== c.minor) return v.minor < c.minor
  if (c.patch === undefined) return false
  if (v.patch !== c.patch) return v.patch < c.patch
  return comparePre(v.pre, c.pre) < 0
}

const tilde = (c: Comparator, v: Version): boolean => {
  if (v.major !== c.major) return false
  if (c.minor !== undefined && v.minor !== c.minor) return false
  if (c.patch !== undefined && v.patch !== c.patch) return v.patch > c.patch
  return comparePre(v.pre, c.pre) >= 0
}

const caret = (c: Comparator, v: Version): boolean => {
  if (v.major !== c.major) return false
  if (c.minor === undefined) return true
  if (c.patch === undefined) return c.major > 0n ? v.minor >= c.minor : v.minor === c.minor
  if (c.major > 0n) {
    if (v.minor !== c.minor) return v.minor > c.minor
    if (v.patch !== c.patch) return v.patch > c.patch
  } else if (c.minor > 0n) {
    if (v.minor !== c.minor) return false
    if (v.patch !== c.patch) return v.patch > c.patch
  } else if (v.minor !== c.minor || v.patch !== c.patch) return false
  return comparePre(v.pre, c.pre) >= 0
}

const matchesComparator = (c: Comparator, v: Version): boolean => {
  switch (c.op) {
    case "=":
    case "*":
      return exact(c, v)
    case ">":
      return greater(c, v)
    case ">=":
      return exact(c, v) || greater(c, v)
    case "<":
      return less(c, v)
    case "<=":
      return exact(c, v) || less(c, v)
    case "~":
      return tilde(c, v)
    case "^":
      return caret(c, v)
  }
}

/**
 * `VersionReq::matches`. A prerelease version only matches when some comparator names the same
 * major.minor.patch with a prerelease of its own (so 1.2.5-beta is not in ~1.2.3).
 */
export const matchesReq = (req: VersionReq, v: Version): boolean =>
  req.comparators.every((c) => matchesComparator(c, v)) &&
  (v.pre === "" ||
    req.comparators.some((c) => c.major === v.major && c.minor === v.minor && c.patch === v.patch && c.pre !== ""))

/** The requirement text the service builds for `semver_tilde`/`semver_caret`/`semver_wildcard`. */
export const requirementText = (
  operator: "semver_tilde" | "semver_caret" | "semver_wildcard",
  value: string
): string => {
  const normalized = normalizeVersionText(value)
  if (operator === "semver_tilde") return `~${canonicalizeVersionText(normalized)}`
  if (operator === "semver_caret") return `^${canonicalizeVersionText(normalized)}`
  return normalized.split(".").map(stripLeadingZeros).join(".").replaceAll("*", "x")
}

// Trends formulas (`(A + B) / 2`): letters name series in order; evaluated per bucket in
// TypeScript, parsed by hand so that a formula is never code. Non-finite results (x / 0) are 0.

type Node =
  | { readonly n: number }
  | { readonly ref: number }
  | { readonly op: string; readonly l: Node; readonly r: Node }
  | { readonly neg: Node }

const TOKEN = /\s*(\d+(?:\.\d+)?|[A-Za-z]|[-+*/()])/y

export class FormulaInvalid extends Error {}

export const parseFormula = (text: string): Node => {
  const tokens: Array<string> = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break
    const at = TOKEN.lastIndex
    const m = TOKEN.exec(text)
    if (m === null) throw new FormulaInvalid(`Invalid formula "${text}" at position ${at}`)
    tokens.push(m[1]!)
  }
  let i = 0
  const peek = () => tokens[i]
  const fail = (): never => {
    throw new FormulaInvalid(`Invalid formula "${text}"`)
  }
  const primary = (): Node => {
    const t = tokens[i++] ?? fail()
    if (t === "(") {
      const e = sum()
      if (tokens[i++] !== ")") fail()
      return e
    }
    if (t === "-") return { neg: primary() }
    if (/^\d/.test(t)) return { n: Number(t) }
    if (/^[A-Za-z]$/.test(t)) return { ref: t.toUpperCase().charCodeAt(0) - 65 }
    return fail()
  }
  const product = (): Node => {
    let l = primary()
    while (peek() === "*" || peek() === "/") l = { op: tokens[i++]!, l, r: primary() }
    return l
  }
  const sum = (): Node => {
    let l = product()
    while (peek() === "+" || peek() === "-") l = { op: tokens[i++]!, l, r: product() }
    return l
  }
  const tree = sum()
  if (i !== tokens.length) fail()
  return tree
}

/** The highest series index a formula names. */
export const maxRef = (node: Node): number =>
  "ref" in node
    ? node.ref
    : "op" in node
      ? Math.max(maxRef(node.l), maxRef(node.r))
      : "neg" in node
        ? maxRef(node.neg)
        : -1

const evaluate = (node: Node, values: ReadonlyArray<number>): number => {
  if ("n" in node) return node.n
  if ("ref" in node) return values[node.ref] ?? 0
  if ("neg" in node) return -evaluate(node.neg, values)
  const [l, r] = [evaluate(node.l, values), evaluate(node.r, values)]
  return node.op === "+" ? l + r : node.op === "-" ? l - r : node.op === "*" ? l * r : l / r
}

export const applyFormula = (node: Node, values: ReadonlyArray<number>): number => {
  const v = evaluate(node, values)
  return Number.isFinite(v) ? v : 0
}

// Path matching for the route table: a trie of path segments, literal segments before `:params`,
// with backtracking. A trailing slash is optional everywhere.

interface Node<T> {
  readonly literal: Map<string, Node<T>>
  param: Node<T> | undefined
  readonly methods: Map<string, { readonly value: T; readonly names: ReadonlyArray<string> }>
}

export type Match<T> =
  | { readonly _tag: "Found"; readonly value: T; readonly params: Readonly<Record<string, string>> }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: ReadonlyArray<string> }
  | { readonly _tag: "NotFound" }

export interface Router<T> {
  readonly match: (method: string, path: string) => Match<T>
}

const node = <T>(): Node<T> => ({ literal: new Map(), param: undefined, methods: new Map() })

const segments = (path: string): Array<string> | undefined => {
  const trimmed = path.replace(/^\//, "").replace(/\/$/, "")
  if (trimmed === "") return []
  const parts = trimmed.split("/")
  return parts.includes("") ? undefined : parts
}

export const compile = <T>(
  entries: Iterable<{ readonly method: string; readonly path: string; readonly value: T }>
): Router<T> => {
  const root = node<T>()
  for (const { method, path, value } of entries) {
    let at = root
    const names: Array<string> = []
    for (const segment of segments(path) ?? []) {
      if (segment.startsWith(":")) {
        names.push(segment.slice(1))
        at = at.param ??= node()
      } else {
        let next = at.literal.get(segment)
        if (next === undefined) at.literal.set(segment, (next = node()))
        at = next
      }
    }
    if (at.methods.has(method)) throw new Error(`duplicate route ${method} ${path}`)
    at.methods.set(method, { value, names })
  }

  const find = (at: Node<T>, parts: ReadonlyArray<string>, i: number, values: Array<string>): Node<T> | undefined => {
    if (i === parts.length) return at.methods.size > 0 ? at : undefined
    const literal = at.literal.get(parts[i]!)
    const viaLiteral = literal && find(literal, parts, i + 1, values)
    if (viaLiteral) return viaLiteral
    if (at.param === undefined) return undefined
    values.push(parts[i]!)
    const viaParam = find(at.param, parts, i + 1, values)
    if (!viaParam) values.pop()
    return viaParam
  }

  return {
    match: (method, path) => {
      let parts: Array<string> | undefined
      try {
        parts = segments(path)?.map(decodeURIComponent)
      } catch {
        return { _tag: "NotFound" }
      }
      if (parts === undefined) return { _tag: "NotFound" }
      const values: Array<string> = []
      const leaf = find(root, parts, 0, values)
      if (leaf === undefined) return { _tag: "NotFound" }
      const entry = leaf.methods.get(method) ?? (method === "HEAD" ? leaf.methods.get("GET") : undefined)
      if (entry === undefined) return { _tag: "MethodNotAllowed", allow: [...leaf.methods.keys()] }
      const params: Record<string, string> = {}
      entry.names.forEach((name, i) => (params[name] = values[i]!))
      return { _tag: "Found", value: entry.value, params }
    }
  }
}

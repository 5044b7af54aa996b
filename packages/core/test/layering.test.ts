import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

// The layering rule of docs/decisions/0011-layering.md, checked on the sources: each test lists the
// imports that break one part of it, and expects none.

const packages = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const src = join(packages, "core/src")

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : /\.(ts|js)$/.test(entry.name) ? [join(dir, entry.name)] : []
  )

const SPECIFIER = /(?:from|import)\s*\(?\s*"([^"]+)"/g

/** Every import of a file: its specifier and, for a relative one, the file's path from `src`. */
const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(SPECIFIER)].map(([, specifier]) => ({
    specifier: specifier!,
    target: specifier!.startsWith(".")
      ? relative(src, resolve(dirname(file), specifier!)).replace(/\.js$/, ".ts")
      : undefined
  }))

const core = sources(src).map((file) => ({ path: relative(src, file), imports: importsOf(file) }))

/** `file → import` for each import `broken` calls a breach. */
const breaches = (files: typeof core, broken: (path: string, target: string) => boolean) =>
  files.flatMap(({ imports, path }) =>
    imports.filter((i) => i.target !== undefined && broken(path, i.target)).map((i) => `${path} → ${i.target}`)
  )

const top = (path: string) => path.split("/")[0]!

/** Modules with no I/O and no knowledge of features: values, rules and parsing. */
const FOUNDATION = new Set(["domain", "filters", "schema", "grammar", "cache"])
/** Where the library is assembled, and its entry points: the only modules outside `api/` that may reach it. */
const COMPOSITION = new Set(["createZed.ts", "index.ts", "adapter.ts", "domain.ts", "storage.ts"])

describe("the layering of @zed/core", () => {
  it("finds the sources it checks", () => {
    expect(core.length).toBeGreaterThan(100)
    expect(core.some((f) => f.path === "api/routes/capture.ts")).toBe(true)
  })

  it("keeps HTTP at the edge: nothing below api/ imports it", () => {
    expect(
      breaches(core, (path, target) => top(path) !== "api" && !COMPOSITION.has(path) && top(target) === "api")
    ).toEqual([])
  })

  it("keeps routes independent: a route module imports no other route module", () => {
    const routes = (path: string) => path.startsWith("api/routes/") && path !== "api/routes/index.ts"
    expect(breaches(core, (path, target) => routes(path) && routes(target))).toEqual([])
  })

  it("keeps the foundation pure: domain, filters, schema, grammar and cache import only each other", () => {
    expect(breaches(core, (path, target) => FOUNDATION.has(top(path)) && !FOUNDATION.has(top(target)))).toEqual([])
  })

  it("lets the other packages use the core only through its published entry points", () => {
    const exported = Object.keys(
      JSON.parse(readFileSync(join(packages, "core/package.json"), "utf8")).exports as object
    ).map((key) => (key === "." ? "@zed/core" : `@zed/core/${key.slice(2)}`))
    const others = readdirSync(packages).filter((name) => name !== "core" && name !== "web")
    const reaching = others.flatMap((name) =>
      sources(join(packages, name, "src")).flatMap((file) =>
        importsOf(file)
          .filter(({ specifier }) =>
            specifier.startsWith("@zed/core") ? !exported.includes(specifier) : specifier.includes("/core/src")
          )
          .map(({ specifier }) => `${relative(packages, file)} → ${specifier}`)
      )
    )
    expect(reaching).toEqual([])
  })
})

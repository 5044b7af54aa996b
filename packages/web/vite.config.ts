import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import react from "@vitejs/plugin-react"
import { defineConfig, type Plugin, type Rollup } from "vite"

// index.html's script (src/main.ts) is small and imports the app (src/app.tsx) dynamically, so that
// it runs early; this lists the app's chunks in index.html too, so the browser fetches them at once
// instead of once main.ts runs.
const modulepreloadApp = (): Plugin => ({
  name: "zed-modulepreload-app",
  apply: "build",
  transformIndexHtml: {
    order: "post",
    handler: (html, { bundle }) => {
      const chunks = Object.values(bundle ?? {}).filter((file): file is Rollup.OutputChunk => file.type === "chunk")
      const app = chunks.find((chunk) => chunk.facadeModuleId?.endsWith("/src/app.tsx"))
      if (!app) throw new Error("the app's chunk (src/app.tsx) is missing from the build")
      const files = new Set<string>()
      const add = (fileName: string) => {
        const chunk = chunks.find((candidate) => candidate.fileName === fileName)
        if (files.has(fileName) || !chunk || chunk.isEntry) return
        files.add(fileName)
        for (const imported of chunk.imports) add(imported)
      }
      add(app.fileName)
      const links = [...files].map((file) => `<link rel="modulepreload" crossorigin href="./${file}">`)
      return html.replace("</head>", `  ${links.join("\n    ")}\n  </head>`)
    }
  }
})

// Every text file of the build also as `.gz` and `.br`, made once here at their strongest, so that
// the handler only picks one by `Accept-Encoding` and never compresses per request.
const precompress = (): Plugin => ({
  name: "zed-precompress",
  apply: "build",
  writeBundle: ({ dir }) => {
    const walk = (at: string): Array<string> =>
      readdirSync(at).flatMap((name) => (statSync(join(at, name)).isDirectory() ? walk(join(at, name)) : [join(at, name)]))
    for (const file of walk(dir!)) {
      if (!/\.(js|css|svg|json|map|txt)$/.test(file)) continue
      const body = readFileSync(file)
      writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }))
      writeFileSync(
        `${file}.br`,
        brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      )
    }
  }
})

export default defineConfig({
  // Relative asset URLs: the handler adds `<base href>` to index.html for wherever the app is mounted.
  base: "./",
  plugins: [react(), modulepreloadApp(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    rolldownOptions: { checks: { pluginTimings: false } }
  }
})

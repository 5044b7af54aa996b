import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import react from "@vitejs/plugin-react"
import { defineConfig, type Plugin } from "vite"

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
  plugins: [react(), precompress()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    rolldownOptions: { checks: { pluginTimings: false } }
  }
})

import { setFlagsFromString } from "node:v8"

/**
 * Compiles WebAssembly the way a long-running server holding PGlite is best served: each function
 * when first called, and straight to optimized code. By default V8 compiles the whole of PGlite's
 * module (and the ZedQL parser's) at once with its baseline compiler and again, optimized, as
 * functions get hot: most of Postgres is never called, and both copies stay resident. With these
 * flags `zed serve` on PGlite held about 55 MB less idle and 60 MB less under load
 * (`npm run bench -- memory`), at the cost of a slower first call of each function.
 *
 * V8's flags belong to the whole process, and must be set before any module is compiled: call this
 * first thing in a process that is Zed's own (`zed serve` does), not from a library inside a host's.
 */
export const leanWasmCompilation = (): void => setFlagsFromString("--wasm-lazy-compilation --no-liftoff")

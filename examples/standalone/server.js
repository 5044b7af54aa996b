import { leanWasmCompilation, loadConfig, serve } from "@zed/node"

// This process is Zed's own: WebAssembly compiled as `zed serve` compiles it (less memory).
leanWasmCompilation()
// The same server `zed serve` runs, started from code: settings come from the environment
// (PORT, HOST, ZED_DATA_DIR, DATABASE_URL, ZED_PROJECT_API_KEY, ZED_PERSONAL_API_KEY).
const running = await serve(await loadConfig())
const stop = () => running.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)

// Memory reporting for bench servers run in their own process: between the parent's
// `{memory: "start"}` and `{memory: "stop"}` messages, `process.memoryUsage()` is sampled every 50 ms
// (a busy event loop delays samples, so short peaks can be missed); "stop" answers the figures at
// "start" and the peaks in between, in bytes. RSS includes worker threads (PGlite's among them);
// heap used is the main thread's JavaScript heap only.
export const reportMemory = () => {
  let sampling
  process.on("message", ({ memory }) => {
    if (memory === "start") {
      const { heapUsed, rss } = process.memoryUsage()
      sampling = { rss, heapUsed, peakRss: rss, peakHeapUsed: heapUsed }
      sampling.timer = setInterval(() => {
        const now = process.memoryUsage()
        sampling.peakRss = Math.max(sampling.peakRss, now.rss)
        sampling.peakHeapUsed = Math.max(sampling.peakHeapUsed, now.heapUsed)
      }, 50)
      process.send({ memory: "started" })
    } else if (memory === "stop") {
      clearInterval(sampling.timer)
      const { heapUsed, peakHeapUsed, peakRss, rss } = sampling
      process.send({ memory: { rss, heapUsed, peakRss, peakHeapUsed } })
    }
  })
}

import { apiRoot, appRoot } from "./api.js"
import { pageAt } from "./pages.js"
import "./styles.css"

// index.html's script, kept small so that it runs early: for the page being opened it starts the
// page's code and its first API call, then loads the app (React, the router, the shell). All three
// are then on their way at once; the app would otherwise ask for the page's code and data only once
// it had loaded and started. The page's own call for the same URL takes the preloaded answer, as the
// call to /api/users/@me/ takes the handler's preload.

const opening = pageAt(location.pathname.slice(appRoot.length))
if (opening) {
  // A failure here is the router's to report, when it loads the page itself.
  opening.page.load().catch(() => undefined)
  const call = opening.page.firstCall?.(opening.id, opening.param)
  if (call !== undefined) {
    const link = document.createElement("link")
    link.rel = "preload"
    link.as = "fetch"
    link.crossOrigin = "anonymous"
    link.href = apiRoot + call
    document.head.append(link)
  }
}
void import("./app.js")

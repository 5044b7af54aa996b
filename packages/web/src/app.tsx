import { QueryClientProvider } from "@tanstack/react-query"
import { RouterProvider } from "@tanstack/react-router"
import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { queryClient } from "./queryClient.js"
import { router } from "./router.js"
import { applyTheme, storedTheme } from "./theme.js"

// The app itself, loaded by main.ts once the page's own code and data are on their way.

applyTheme(storedTheme())

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>
)

import { QueryClient } from "@tanstack/react-query"
import { ApiError, api, type Me } from "./api.js"

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A 4xx answer will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2
    }
  }
})

export const meQuery = { queryKey: ["me"], queryFn: () => api<Me>("/api/users/@me/") } as const

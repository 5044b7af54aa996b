import { useQuery } from "@tanstack/react-query"
import { api, type Paginated } from "./api.js"

// Queries shared by a page and its route's loader, which starts them while the page's code loads.

/** An API answer cached under its path. */
export const pathQuery = <T>(path: string) => ({ queryKey: ["path", path], queryFn: () => api<T>(path) }) as const

/** A filtered list: while new filters load, the previous answer stays on screen. */
export const useList = <T>(path: string, refetchInterval: number | false = false) =>
  useQuery({ ...pathQuery<Paginated<T>>(path), refetchInterval, placeholderData: (previous) => previous })

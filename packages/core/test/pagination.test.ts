import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { DEFAULT_LIMIT, MAX_LIMIT, pageLinks, paginated, toPage } from "../src/domain/pagination.js"

const url = (query = "") => new URL(`https://zed.example/api/projects/${query}`)

describe("pagination", () => {
  it("defaults to the first page of 100 and caps the limit", () => {
    expect(toPage({})).toEqual({ limit: DEFAULT_LIMIT, offset: 0 })
    expect(toPage({ limit: 5000, offset: 7 })).toEqual({ limit: MAX_LIMIT, offset: 7 })
  })

  it("builds absolute links from the request URL, keeping other parameters", () => {
    const links = pageLinks(url("?search=x&limit=10&offset=20"), { limit: 10, offset: 20 }, 45)
    expect(links.next).toBe("https://zed.example/api/projects/?search=x&limit=10&offset=30")
    expect(links.previous).toBe("https://zed.example/api/projects/?search=x&limit=10&offset=10")
  })

  it("drops offset from the link back to the first page, and has no links past the ends", () => {
    expect(pageLinks(url("?offset=5&limit=10"), { limit: 10, offset: 5 }, 30).previous).toBe(
      "https://zed.example/api/projects/?limit=10"
    )
    expect(pageLinks(url(), { limit: 10, offset: 0 }, 30).previous).toBeNull()
    expect(pageLinks(url(), { limit: 10, offset: 20 }, 30).next).toBeNull()
    expect(paginated(url(), { limit: 10, offset: 0 }, 0, [])).toEqual({
      count: 0,
      next: null,
      previous: null,
      results: []
    })
  })

  it("following next from the first page visits every item once, and previous walks back", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 60 }), (count, limit) => {
        const seen: Array<number> = []
        const offsets: Array<number> = []
        let link: string | null = url(`?limit=${limit}`).toString()
        while (link !== null) {
          const at: URL = new URL(link)
          const page = toPage({
            limit: Number(at.searchParams.get("limit")),
            offset: Number(at.searchParams.get("offset") ?? 0)
          })
          offsets.push(page.offset)
          for (let i = page.offset; i < Math.min(page.offset + page.limit, count); i++) seen.push(i)
          link = pageLinks(at, page, count).next
        }
        expect(seen).toEqual(Array.from({ length: count }, (_, i) => i))
        // Walking back from the last page lands on each earlier page in turn.
        const back: Array<number> = []
        let prev: string | null = url(`?limit=${limit}&offset=${offsets.at(-1)}`).toString()
        while (prev !== null) {
          const at: URL = new URL(prev)
          const page = toPage({ limit, offset: Number(at.searchParams.get("offset") ?? 0) })
          back.unshift(page.offset)
          prev = pageLinks(at, page, count).previous
        }
        expect(back).toEqual(offsets)
      })
    )
  })
})

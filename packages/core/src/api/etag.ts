/** If-None-Match holds `*` or this tag among others; weakness is ignored, as RFC 9110 has for GET. */
export const etagMatches = (header: string | undefined, etag: string) => {
  if (header === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "")
  return header.trim() === "*" || header.split(",").some((tag) => opaque(tag) === opaque(etag))
}

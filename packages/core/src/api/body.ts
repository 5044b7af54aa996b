import { Effect } from "effect"
import { ZedConfig } from "../services/ZedConfig.js"
import { InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from "./errors.js"
import { BodyTooLargeError, type ZedRequest } from "./request.js"

/** The body, up to `limit` bytes. */
export const readBody = (request: ZedRequest, limit: number) =>
  Effect.tryPromise({
    try: () => request.body(limit),
    catch: (error) =>
      error instanceof BodyTooLargeError
        ? new PayloadTooLarge({ limit: error.limit })
        : new InvalidRequest({ code: "parse_error", detail: "The request body could not be read." })
  })

const isJson = (contentType: string) => {
  const mime = contentType.split(";")[0]!.trim().toLowerCase()
  return mime === "application/json" || mime.endsWith("+json")
}

const isForm = (contentType: string) => contentType.split(";")[0]!.trim().toLowerCase() === "multipart/form-data"

/** A multipart form (as PostHog's uploads send) as an object: each field's text, a file's content. */
const readForm = (bytes: Uint8Array, contentType: string) =>
  Effect.tryPromise({
    try: async () => {
      const form = await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
        headers: { "content-type": contentType }
      }).formData()
      const fields: Record<string, string> = {}
      for (const [name, value] of form) fields[name] = typeof value === "string" ? value : await value.text()
      return fields as unknown
    },
    catch: () => new InvalidRequest({ code: "parse_error", detail: "Multipart form parse error." })
  })

/**
 * The JSON body of an API request, within the API's body limit; an empty body reads as `{}`, a
 * multipart form as the object of its fields.
 */
export const readJson = (request: ZedRequest) =>
  Effect.gen(function* () {
    const bytes = yield* readBody(request, (yield* ZedConfig).limits.bodyBytes.api)
    if (bytes.length === 0) return {} as unknown
    const contentType = request.header("content-type")
    if (contentType !== undefined && isForm(contentType)) return yield* readForm(bytes, contentType)
    if (contentType !== undefined && !isJson(contentType)) return yield* new UnsupportedMediaType({ contentType })
    return yield* Effect.try({
      try: (): unknown => JSON.parse(new TextDecoder().decode(bytes)),
      catch: (error) =>
        new InvalidRequest({ code: "parse_error", detail: `JSON parse error - ${(error as Error).message}` })
    })
  })

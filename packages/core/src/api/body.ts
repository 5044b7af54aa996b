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

/** The JSON body of an API request, within the API's body limit; an empty body reads as `{}`. */
export const readJson = (request: ZedRequest) =>
  Effect.gen(function* () {
    const bytes = yield* readBody(request, (yield* ZedConfig).limits.bodyBytes.api)
    if (bytes.length === 0) return {} as unknown
    const contentType = request.header("content-type")
    if (contentType !== undefined && !isJson(contentType)) return yield* new UnsupportedMediaType({ contentType })
    return yield* Effect.try({
      try: (): unknown => JSON.parse(new TextDecoder().decode(bytes)),
      catch: (error) =>
        new InvalidRequest({ code: "parse_error", detail: `JSON parse error - ${(error as Error).message}` })
    })
  })

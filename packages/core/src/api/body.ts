import { Effect } from "effect"
import { InvalidRequest, PayloadTooLarge, UnsupportedMediaType } from "./errors.js"
import { BodyTooLargeError, type ZedRequest } from "./request.js"

export const readBody = (request: ZedRequest) =>
  Effect.tryPromise({
    try: () => request.body(),
    catch: (error) =>
      error instanceof BodyTooLargeError
        ? new PayloadTooLarge({ limit: error.limit })
        : new InvalidRequest({ code: "parse_error", detail: "The request body could not be read." })
  })

const isJson = (contentType: string) => {
  const mime = contentType.split(";")[0]!.trim().toLowerCase()
  return mime === "application/json" || mime.endsWith("+json")
}

/** The JSON body of a request; an empty body reads as `{}`. */
export const readJson = (request: ZedRequest) =>
  Effect.flatMap(readBody(request), (bytes): Effect.Effect<unknown, UnsupportedMediaType | InvalidRequest> => {
    if (bytes.length === 0) return Effect.succeed({})
    const contentType = request.header("content-type")
    if (contentType !== undefined && !isJson(contentType)) {
      return Effect.fail(new UnsupportedMediaType({ contentType }))
    }
    return Effect.try({
      try: (): unknown => JSON.parse(new TextDecoder().decode(bytes)),
      catch: (error) =>
        new InvalidRequest({ code: "parse_error", detail: `JSON parse error - ${(error as Error).message}` })
    })
  })

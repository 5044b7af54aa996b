/** What a route answers with, independent of the framework that sends it. */
export class Reply {
  constructor(
    readonly status: number,
    /** A stream is sent as it is read (large downloads). */
    readonly body: string | Uint8Array | ReadableStream<Uint8Array> | null,
    readonly headers: Readonly<Record<string, string>> = {},
    /** `Set-Cookie` values, one header each. */
    readonly cookies: ReadonlyArray<string> = []
  ) {}

  withCookies(cookies: ReadonlyArray<string>): Reply {
    return new Reply(this.status, this.body, this.headers, [...this.cookies, ...cookies])
  }

  static json(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): Reply {
    return new Reply(status, JSON.stringify(value), { "content-type": "application/json", ...headers })
  }

  static empty(status: number, headers: Readonly<Record<string, string>> = {}): Reply {
    return new Reply(status, null, headers)
  }
}

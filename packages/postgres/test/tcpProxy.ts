import { createServer, type Server, type Socket, connect } from "node:net"
import type { AddressInfo } from "node:net"

/**
 * A TCP proxy in front of a server that a test can make unreachable (connections refused and cut)
 * or frozen (connections held open, nothing forwarded), then bring back.
 */
export interface TcpProxy {
  readonly port: number
  readonly state: () => "up" | "down" | "frozen"
  readonly up: () => void
  readonly down: () => void
  readonly freeze: () => void
  readonly close: () => Promise<void>
}

interface Pair {
  readonly client: Socket
  upstream: Socket | undefined
}

export const tcpProxy = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  let state: "up" | "down" | "frozen" = "up"
  const pairs = new Set<Pair>()

  const flow = (pair: Pair) => {
    pair.client.pipe(pair.upstream!)
    pair.upstream!.pipe(pair.client)
  }

  const link = (pair: Pair) => {
    const upstream = connect(target.port, target.host)
    pair.upstream = upstream
    flow(pair)
    const end = () => {
      pairs.delete(pair)
      pair.client.destroy()
      upstream.destroy()
    }
    upstream.on("error", end)
    upstream.on("close", end)
  }

  const server: Server = createServer((client) => {
    if (state === "down") return void client.destroy()
    const pair: Pair = { client, upstream: undefined }
    pairs.add(pair)
    client.on("error", () => pair.upstream?.destroy())
    client.on("close", () => {
      pairs.delete(pair)
      pair.upstream?.destroy()
    })
    if (state === "up") link(pair)
    else client.pause()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))

  const each = (f: (pair: Pair) => void) => [...pairs].forEach(f)
  return {
    port: (server.address() as AddressInfo).port,
    state: () => state,
    up: () => {
      state = "up"
      each((pair) => (pair.upstream === undefined ? link(pair) : flow(pair)))
    },
    down: () => {
      state = "down"
      each((pair) => {
        pair.client.destroy()
        pair.upstream?.destroy()
      })
      pairs.clear()
    },
    freeze: () => {
      state = "frozen"
      // Unpiped, so that nothing resumes the flow (a drained side would), and paused.
      each((pair) => {
        if (pair.upstream === undefined) return
        pair.client.unpipe(pair.upstream)
        pair.upstream.unpipe(pair.client)
        pair.client.pause()
        pair.upstream.pause()
      })
    },
    close: async () => {
      each((pair) => {
        pair.client.destroy()
        pair.upstream?.destroy()
      })
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

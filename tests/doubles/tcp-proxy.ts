import net from 'node:net'

/**
 * A TCP pass-through to a real server (PostgreSQL, Redis) that a test can cut and restore, to see
 * how the app behaves when that server becomes unreachable.
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>()
  let accepting = true
  const server = net.createServer((client) => {
    if (!accepting) {
      client.destroy()
      return
    }
    const upstream = net.connect(target.port, target.host)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  return {
    host: '127.0.0.1',
    port,
    /** Drops every open connection and refuses new ones. */
    cut() {
      accepting = false
      for (const s of sockets) s.destroy()
    },
    restore() {
      accepting = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

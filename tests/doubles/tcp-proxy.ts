import net from 'node:net'

/**
 * A TCP pass-through to a real server (PostgreSQL, Redis, SMTP) that a test can cut (connections
 * refused), stall (connections accepted, then silence: a server that hangs) and restore, to see how
 * the app behaves when that server becomes unreachable or stops answering.
 */
/** `target` is read at each new connection, so a test may point it elsewhere (a server started later). */
export async function startTcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>()
  let mode: 'pass' | 'refuse' | 'stall' = 'pass'
  let connections = 0
  const server = net.createServer((client) => {
    connections++
    if (mode === 'refuse') {
      client.destroy()
      return
    }
    if (mode === 'stall') {
      // Held open and never answered, until the client gives up or the proxy closes.
      sockets.add(client)
      client.on('close', () => sockets.delete(client))
      client.on('error', () => client.destroy())
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
      mode = 'refuse'
      for (const s of sockets) s.destroy()
    },
    /** Accepts new connections and never says a word on them (open ones are dropped). */
    stall() {
      mode = 'stall'
      for (const s of sockets) s.destroy()
    },
    restore() {
      mode = 'pass'
    },
    /** Connections made so far (refused and stalled ones included). */
    get connections() {
      return connections
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

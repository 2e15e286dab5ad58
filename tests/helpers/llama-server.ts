import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'

/**
 * The real llama.cpp server of ../shared/llama (see its README): a tiny random-weight model behind
 * the real OpenAI-compatible protocol, chat templates and context limits. Absent on machines
 * without that folder: suites check `llamaAvailable` and report themselves skipped.
 */
export const LLAMA_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'llama')
export const llamaAvailable = existsSync(path.join(LLAMA_DIR, 'run.sh'))

/**
 * A port held (listened on) until `release`, so nothing else takes it between the pick and the
 * server's start: other test processes start llama-servers too.
 */
export function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    // Whoever connects meanwhile (the app's model health check, its context probe) is cut off at
    // release: close() alone would wait for those connections to end, which they never do.
    const sockets = new Set<net.Socket>()
    const server = net.createServer((socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      const release = () =>
        new Promise<void>((done) => {
          server.close(() => done())
          for (const socket of sockets) socket.destroy()
        })
      resolve({ port, release })
    })
  })
}

export type LlamaServer = { port: number; stop: () => Promise<void>; log: () => string }

/**
 * Starts `run.sh PORT CTX TEMPLATE [flags]` on the reserved port (released just before) and waits
 * until GET /health answers 200. /health is only trusted once our process has outlived the bind
 * (a taken port makes it exit at once, before it loads the model), never another process's
 * server on the port. `stop` kills this one process (run.sh execs llama-server).
 */
export async function startLlamaServer(
  reserved: { port: number; release: () => Promise<void> },
  ctx: number,
  template: string,
  flags: string[] = [],
): Promise<LlamaServer> {
  await reserved.release()
  const started = await tryStart(reserved.port, ctx, template, flags)
  if (!started.ok) throw new Error(`llama-server did not start on port ${reserved.port}:\n${started.log}`)
  return started.server
}

async function tryStart(port: number, ctx: number, template: string, flags: string[]) {
  const child: ChildProcess = spawn(path.join(LLAMA_DIR, 'run.sh'), [String(port), String(ctx), template, ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    // Only the tail is kept: enough to say why a start failed.
    output = (output + chunk.toString()).slice(-4000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  // SIGKILL: a test server has nothing to save, and SIGTERM waits for the requests in flight.
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  }
  const deadline = Date.now() + 30_000
  await new Promise((r) => setTimeout(r, 300))
  for (;;) {
    if (child.exitCode !== null) return { ok: false as const, log: output }
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((res) => res.status === 200)
      .catch(() => false)
    if (ok && child.exitCode === null) return { ok: true as const, server: { port, stop, log: () => output } }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`llama-server did not answer /health within 30 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

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

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export type LlamaServer = { port: number; stop: () => Promise<void>; log: () => string }

/**
 * Starts `run.sh PORT CTX TEMPLATE [flags]` and waits until GET /health answers 200. `stop` kills
 * this one process (run.sh execs llama-server, so the child is the server).
 */
export async function startLlamaServer(
  port: number,
  ctx: number,
  template: string,
  flags: string[] = [],
): Promise<LlamaServer> {
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
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}):\n${output}`)
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((res) => res.status === 200)
      .catch(() => false)
    if (ok) return { port, stop, log: () => output }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`llama-server did not answer /health within 30 s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

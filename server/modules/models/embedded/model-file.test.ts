import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createModelFile, type ModelFile } from './model-file.ts'
import { parseModelSource } from './model-source.ts'

/** A file of 3 MB served by node:http, with the faults a download meets. */
const FILE = randomBytes(3 * 1024 * 1024)
const SHA = createHash('sha256').update(FILE).digest('hex')

type Behaviour = {
  /** The first GET stops after this many bytes (the socket is destroyed). */
  cutFirstGetAt?: number
  ignoreRange?: boolean
  etag?: string
  status?: number
  /** Milliseconds between 64 KB chunks. */
  slowMs?: number
}

let server: Server
let base: string
let behaviour: Behaviour
let requests: { method: string; range: string | undefined }[]
let dataDir: string
let files: ModelFile[]
const logs: { level: 'info' | 'warn'; msg: string; obj: Record<string, unknown> }[] = []
const log = {
  info: (obj: object, msg: string) => logs.push({ level: 'info', msg, obj: obj as Record<string, unknown> }),
  warn: (obj: object, msg: string) => logs.push({ level: 'warn', msg, obj: obj as Record<string, unknown> }),
}

function handle(req: IncomingMessage, res: import('node:http').ServerResponse) {
  requests.push({ method: req.method ?? '', range: req.headers.range })
  if (behaviour.status) {
    res.writeHead(behaviour.status).end()
    return
  }
  const headers = { 'x-linked-etag': `"${behaviour.etag ?? SHA}"`, 'accept-ranges': 'bytes' }
  if (req.method === 'HEAD') {
    res.writeHead(200, { ...headers, 'content-length': FILE.length }).end()
    return
  }
  const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
  const start = match && !behaviour.ignoreRange ? Number(match[1]) : 0
  const body = FILE.subarray(start)
  res.writeHead(
    start > 0 ? 206 : 200,
    start > 0
      ? {
          ...headers,
          'content-length': body.length,
          'content-range': `bytes ${start}-${FILE.length - 1}/${FILE.length}`,
        }
      : { ...headers, 'content-length': body.length },
  )
  const gets = requests.filter((r) => r.method === 'GET').length
  const cutAt = gets === 1 ? behaviour.cutFirstGetAt : undefined
  let sent = 0
  const step = 64 * 1024
  const next = () => {
    if (sent >= body.length) return res.end()
    if (cutAt !== undefined && sent >= cutAt) return res.socket?.destroy()
    const chunk = body.subarray(sent, sent + step)
    sent += chunk.length
    res.write(chunk)
    if (behaviour.slowMs) setTimeout(next, behaviour.slowMs)
    else setImmediate(next)
  }
  next()
}

beforeEach(async () => {
  behaviour = {}
  requests = []
  logs.length = 0
  files = []
  dataDir = mkdtempSync(path.join(tmpdir(), 'model-file-'))
  server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  for (const file of files) await file.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  rmSync(dataDir, { recursive: true, force: true })
})

function open(options: Partial<Parameters<typeof createModelFile>[0]> = {}) {
  const file = createModelFile({
    source: `${base}/tiny.gguf`,
    dataDir,
    log,
    retryDelaysMs: [20],
    progressOutput: { isTTY: false, write: () => true },
    ...options,
  })
  files.push(file)
  return file
}

const finalPath = () => path.join(dataDir, 'models', 'tiny.gguf')

describe('the model file', () => {
  it('downloads the file, verifies it and renames it into place, logging progress every 5 %', async () => {
    const file = open()
    expect(file.status()).toEqual({ state: 'missing' })
    file.start()
    const done = await file.ready()
    expect(done).toBe(finalPath())
    expect(createHash('sha256').update(readFileSync(done)).digest('hex')).toBe(SHA)
    expect(existsSync(`${done}.part`)).toBe(false)
    expect(file.status()).toEqual({ state: 'ready', path: done })
    const progress = logs.filter((l) => l.msg === 'embedded model download')
    expect(progress.length).toBeGreaterThanOrEqual(19)
    expect(progress.at(-1)?.obj).toMatchObject({ percent: 100, totalMB: 3 })
    expect(progress[0]?.obj).toHaveProperty('mbPerSecond')
  })

  it('draws a progress bar on a TTY', async () => {
    const drawn: string[] = []
    behaviour.slowMs = 5
    const file = open({ progressOutput: { isTTY: true, write: (t: string) => drawn.push(t) } })
    file.start()
    await file.ready()
    expect(drawn.join('')).toMatch(/\[#{30}\] 100\.0 % 3\/3 MB [\d.]+ MB\/s/)
    expect(drawn.at(-1)).toBe('\n')
  })

  it('resumes after the connection is cut mid-file: the second request carries a Range, the file is identical', async () => {
    behaviour.cutFirstGetAt = 1024 * 1024
    const file = open()
    file.start()
    const done = await file.ready()
    const gets = requests.filter((r) => r.method === 'GET')
    expect(gets).toHaveLength(2)
    expect(gets[0]?.range).toBeUndefined()
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(gets[1]?.range ?? '')?.[1])
    expect(resumedAt).toBeGreaterThan(0)
    expect(resumedAt).toBeLessThan(FILE.length)
    expect(readFileSync(done).equals(FILE)).toBe(true)
    expect(logs.some((l) => l.level === 'warn' && l.obj.code === 'offline')).toBe(true)
  })

  it('resumes a part left by an earlier run', async () => {
    mkdirSync(path.join(dataDir, 'models'))
    writeFileSync(`${finalPath()}.part`, FILE.subarray(0, 500_000))
    const file = open()
    file.start()
    await file.ready()
    expect(requests.find((r) => r.method === 'GET')?.range).toBe('bytes=500000-')
    expect(readFileSync(finalPath()).equals(FILE)).toBe(true)
  })

  it('starts over cleanly when the server ignores the Range', async () => {
    mkdirSync(path.join(dataDir, 'models'))
    writeFileSync(`${finalPath()}.part`, Buffer.alloc(700_000, 7)) // not even the file's bytes
    behaviour.ignoreRange = true
    const file = open()
    file.start()
    await file.ready()
    expect(requests.filter((r) => r.method === 'GET')).toHaveLength(1)
    expect(readFileSync(finalPath()).equals(FILE)).toBe(true)
    expect(logs.some((l) => l.msg.includes('does not resume'))).toBe(true)
  })

  it('refuses a file whose checksum does not match: nothing is left, the status says why and how to fix it', async () => {
    behaviour.etag = 'a'.repeat(64)
    const file = open({ retryDelaysMs: [60_000] })
    file.start()
    await expect.poll(() => file.status().state).toBe('failed')
    const status = file.status()
    expect(status).toMatchObject({ state: 'failed', code: 'checksum' })
    if (status.state !== 'failed') throw new Error('unreachable')
    expect(status.message).toContain(SHA)
    expect(status.hint).toContain(finalPath())
    expect(status.hint).toContain('EMBEDDED_MODEL=')
    expect(existsSync(finalPath())).toBe(false)
    expect(existsSync(`${finalPath()}.part`)).toBe(false)
  })

  it('holds a pinned checksum over the one the server publishes', async () => {
    const source = { ...parseModelSource(`${base}/tiny.gguf`), sha256: 'b'.repeat(64) }
    const file = open({ source, retryDelaysMs: [60_000] })
    file.start()
    await expect.poll(() => file.status()).toMatchObject({ state: 'failed', code: 'checksum' })
    expect(existsSync(finalPath())).toBe(false)
  })

  it('stops on a full disk with code disk_full and keeps nothing half-renamed', async () => {
    const failing = () =>
      new Writable({
        write(_chunk, _encoding, done) {
          done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
        },
      })
    const file = open({ openWriter: failing, retryDelaysMs: [60_000] })
    file.start()
    await expect.poll(() => file.status()).toMatchObject({ state: 'failed', code: 'disk_full' })
    expect(existsSync(finalPath())).toBe(false)
    const warn = logs.find((l) => l.level === 'warn')
    expect(warn?.obj).toMatchObject({ code: 'disk_full', retryInSeconds: 60 })
    expect(String(warn?.obj.hint)).toContain('tiny.gguf')
  })

  it('offline (connection refused): failed with a hint, tried again later, not in a tight loop', async () => {
    server.close()
    const file = open({ source: `${base}/tiny.gguf`, retryDelaysMs: [300] })
    file.start()
    await expect.poll(() => file.status()).toMatchObject({ state: 'failed', code: 'offline' })
    const status = file.status()
    expect(status.state === 'failed' && status.message).toContain('ECONNREFUSED')
    expect(status.state === 'failed' && status.hint).toMatch(/models.tiny\.gguf.*EMBEDDED_MODEL=/)
    const warnsNow = logs.filter((l) => l.level === 'warn').length
    await new Promise((r) => setTimeout(r, 150))
    expect(logs.filter((l) => l.level === 'warn').length).toBe(warnsNow)
    await expect.poll(() => logs.filter((l) => l.level === 'warn').length).toBeGreaterThan(warnsNow)
  })

  it('picks up a file placed by hand at the next try', async () => {
    server.close()
    const file = open({ source: `${base}/tiny.gguf`, retryDelaysMs: [100] })
    file.start()
    await expect.poll(() => file.status().state).toBe('failed')
    writeFileSync(finalPath(), FILE)
    await expect(file.ready()).resolves.toBe(finalPath())
  })

  it('a 404 is not_found and is not tried again', async () => {
    behaviour.status = 404
    const file = open()
    file.start()
    await expect.poll(() => file.status()).toMatchObject({ state: 'failed', code: 'not_found' })
    await new Promise((r) => setTimeout(r, 100))
    expect(requests).toHaveLength(1)
  })

  it('a server error is http, tried again later', async () => {
    behaviour.status = 500
    const file = open({ retryDelaysMs: [50] })
    file.start()
    await expect.poll(() => file.status()).toMatchObject({ state: 'failed', code: 'http' })
    await expect.poll(() => requests.length).toBeGreaterThanOrEqual(2)
  })

  it('two callers waiting for the file get it from one download', async () => {
    behaviour.slowMs = 2
    const file = open()
    const first = file.ready()
    const second = file.ready()
    file.start()
    file.start()
    await expect.poll(() => file.status().state).toBe('downloading')
    const third = file.ready()
    expect(await Promise.all([first, second, third])).toEqual([finalPath(), finalPath(), finalPath()])
    expect(requests.filter((r) => r.method === 'GET')).toHaveLength(1)
  })

  it('reports the progress while it downloads', async () => {
    behaviour.slowMs = 10
    const file = open()
    file.start()
    await expect.poll(() => file.status().state).toBe('downloading')
    const status = file.status()
    if (status.state !== 'downloading') throw new Error('unreachable')
    expect(status.totalBytes).toBe(FILE.length)
    expect(status.receivedBytes).toBeGreaterThan(0)
    expect(status.percent).toBeGreaterThanOrEqual(0)
    expect(status.percent).toBeLessThan(100)
  })

  it('close() stops the download and keeps the part; a waiter is released', async () => {
    behaviour.slowMs = 20
    const file = open()
    file.start()
    const waiting = file.ready()
    await expect.poll(() => file.status().state).toBe('downloading')
    await file.close()
    await expect(waiting).rejects.toThrow(/closed/)
    expect(existsSync(`${finalPath()}.part`)).toBe(true)
    expect(existsSync(finalPath())).toBe(false)
  })

  it('a local path: ready when it is there, not_found with a hint when not', async () => {
    const present = path.join(dataDir, 'mine.gguf')
    writeFileSync(present, 'GGUF')
    const here = open({ source: present })
    here.start()
    await expect(here.ready()).resolves.toBe(present)

    const absent = open({ source: path.join(dataDir, 'nope.gguf') })
    absent.start()
    await expect.poll(() => absent.status()).toMatchObject({ state: 'failed', code: 'not_found' })
    const status = absent.status()
    expect(status.state === 'failed' && status.hint).toContain('EMBEDDED_MODEL')
  })

  it('never downloads a remote file under NODE_ENV=test unless it is on this machine', async () => {
    const file = open({ source: 'https://example.invalid/model.gguf', fetch: () => Promise.reject(new Error('no')) })
    file.start()
    await expect.poll(() => logs.some((l) => l.msg.includes('not downloaded under NODE_ENV=test'))).toBe(true)
    expect(file.status()).toEqual({ state: 'missing' })
  })

  it('aborts a waiter through its signal', async () => {
    const file = open({ source: 'https://example.invalid/model.gguf' })
    const controller = new AbortController()
    const waiting = file.ready(controller.signal)
    controller.abort(new Error('gave up'))
    await expect(waiting).rejects.toThrow('gave up')
  })
})

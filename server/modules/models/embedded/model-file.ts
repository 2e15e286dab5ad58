import { createHash, type Hash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, stat, unlink } from 'node:fs/promises'
import path from 'node:path'
import { Readable, Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createProgressReporter, type ProgressOutput } from './download-progress.ts'
import { type ModelSource, modelFilePath, parseModelSource } from './model-source.ts'

/**
 * The embedded model's GGUF file (ADR 037). A local path is checked; a remote file is kept in
 * `DATA_DIR/models/` and, when absent, downloaded in the background while the site serves:
 * into `<file>.part`, resumed with an HTTP Range from the part's size, checked against its SHA-256
 * and renamed into place. Failures (offline, disk full, a checksum mismatch) leave a status with a
 * hint and are tried again later, never in a tight loop.
 */

export const MODEL_FILE_FAILURES = ['offline', 'checksum', 'disk_full', 'not_found', 'http'] as const
export type ModelFileFailure = (typeof MODEL_FILE_FAILURES)[number]

export type ModelFileStatus =
  | { state: 'ready'; path: string }
  | { state: 'downloading'; percent: number | null; receivedBytes: number; totalBytes: number | null }
  | { state: 'failed'; code: ModelFileFailure; message: string; hint: string }
  | { state: 'missing' }

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }

export type ModelFileOptions = {
  source: ModelSource | string
  dataDir: string
  log: Log
  fetch?: typeof globalThis.fetch
  /** Opens the `.part` file for writing (tests inject one that fails with ENOSPC). */
  openWriter?: (file: string, options: { append: boolean }) => Writable
  /** The terminal for the progress bar; default process.stdout (drawn only on a TTY). */
  progressOutput?: ProgressOutput
  /** Waits before the next try, by try (the last repeats); default 30 s up to 30 min. */
  retryDelaysMs?: readonly number[]
  /** Whether a remote file may be downloaded; default: not under NODE_ENV=test unless it is on this machine. */
  allowDownload?: boolean
}

export type ModelFile = {
  status(): ModelFileStatus
  /** The file's path once it is there (downloaded and verified); rejects only when closed or aborted. */
  ready(signal?: AbortSignal): Promise<string>
  /** Checks the file and starts the download when it is absent (once; later calls do nothing). */
  start(): void
  /** Stops a download in progress (the part is kept for the next start) and any retry. */
  close(): Promise<void>
}

const DEFAULT_RETRY_DELAYS_MS = [30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000]
const SHA256_HEX = /^[0-9a-f]{64}$/
const OFFLINE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
])

/** A failed try: what it means for the operator and whether trying again later can help. */
class AttemptError extends Error {
  readonly code: ModelFileFailure
  readonly retry: boolean
  constructor(code: ModelFileFailure, message: string, retry: boolean) {
    super(message)
    this.code = code
    this.retry = retry
  }
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** Sorts what a try threw: the network, the disk, or our own AttemptError. */
function asAttemptError(error: unknown): AttemptError {
  if (error instanceof AttemptError) return error
  const code = errorCode(error)
  if (code === 'ENOSPC' || code === 'EDQUOT') return new AttemptError('disk_full', 'the disk is full', true)
  const message = error instanceof Error ? error.message : String(error)
  if (code && OFFLINE_CODES.has(code)) return new AttemptError('offline', `the download failed (${code})`, true)
  if (error instanceof TypeError && /fetch failed|terminated|network/i.test(message)) {
    return new AttemptError('offline', `the download failed (${message})`, true)
  }
  return new AttemptError('http', `the download failed: ${message}`, true)
}

function quotedHash(value: string | null): string | null {
  const hex = value?.replace(/^W\//, '').replaceAll('"', '').trim().toLowerCase() ?? ''
  return SHA256_HEX.test(hex) ? hex : null
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    const info = await stat(file)
    return info.isFile() ? info.size : null
  } catch {
    return null
  }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
}

export function createModelFile(options: ModelFileOptions): ModelFile {
  const source = typeof options.source === 'string' ? parseModelSource(options.source) : options.source
  const { log } = options
  const fetch = options.fetch ?? globalThis.fetch
  const openWriter =
    options.openWriter ??
    ((file: string, { append }: { append: boolean }) => createWriteStream(file, { flags: append ? 'a' : 'w' }))
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS
  const finalPath = modelFilePath(source, options.dataDir)
  const partPath = `${finalPath}.part`
  const allowDownload =
    options.allowDownload ?? (process.env.NODE_ENV !== 'test' || (source.kind === 'remote' && isLoopback(source.url)))

  let current: ModelFileStatus = { state: 'missing' }
  let started = false
  let closed = false
  let tries = 0
  let checksumFailures = 0
  let retryTimer: NodeJS.Timeout | undefined
  const abort = new AbortController()
  const waiters = new Set<{ resolve(path: string): void; reject(error: Error): void }>()
  let running: Promise<void> | undefined

  const hint =
    source.kind === 'local'
      ? `put the .gguf file at ${finalPath}, or set EMBEDDED_MODEL to the path of a .gguf file (or to an hf: URI to download one), then restart`
      : `download ${source.url} by hand and save it as ${finalPath} (it is picked up at the next try, or restart), or set EMBEDDED_MODEL=/path/to/model.gguf; LLM_BASE_URL or MODELS_FILE uses a model server instead`

  function setReady() {
    current = { state: 'ready', path: finalPath }
    for (const waiter of waiters) waiter.resolve(finalPath)
    waiters.clear()
  }

  function fail(error: AttemptError) {
    current = { state: 'failed', code: error.code, message: error.message, hint }
    const again = error.retry && !closed
    const delay = retryDelays[Math.min(tries, retryDelays.length - 1)] ?? 60_000
    log.warn(
      { model: source.displayName, code: error.code, hint, retryInSeconds: again ? Math.round(delay / 1000) : null },
      `embedded model file not available: ${error.message}`,
    )
    if (!again) return
    tries++
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      run()
    }, delay)
    retryTimer.unref()
  }

  /** Learns the file's size and SHA-256 from the server: Hugging Face's X-Linked-* headers or its tree API. */
  async function describeRemote(url: string, huggingFace: Extract<ModelSource, { kind: 'remote' }>['huggingFace']) {
    const head = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: abort.signal })
    if (head.status === 404) throw new AttemptError('not_found', `the server has no such file (${url}: 404)`, false)
    if (head.status === 401 || head.status === 403) {
      throw new AttemptError(
        'not_found',
        `the server refused the file (${url}: ${head.status}; a gated repository?)`,
        false,
      )
    }
    if (head.status >= 400) throw new AttemptError('http', `the server answered ${head.status} for ${url}`, true)
    const linkedSize = Number(head.headers.get('x-linked-size') ?? Number.NaN)
    const length = head.status === 200 ? Number(head.headers.get('content-length') ?? Number.NaN) : Number.NaN
    let sha256 = quotedHash(head.headers.get('x-linked-etag'))
    if (!sha256 && huggingFace) sha256 = await treeChecksum(huggingFace).catch(() => null)
    const totalBytes = Number.isFinite(linkedSize) && linkedSize > 0 ? linkedSize : length > 0 ? length : null
    return { sha256, totalBytes }
  }

  async function treeChecksum(hf: { repo: string; revision: string; filePath: string }): Promise<string | null> {
    const dir = hf.filePath.includes('/') ? `/${hf.filePath.slice(0, hf.filePath.lastIndexOf('/'))}` : ''
    const response = await fetch(`https://huggingface.co/api/models/${hf.repo}/tree/${hf.revision}${dir}`, {
      signal: abort.signal,
    })
    if (!response.ok) return null
    const entries = (await response.json()) as { path?: string; lfs?: { oid?: string } }[]
    return quotedHash(entries.find((e) => e.path === hf.filePath)?.lfs?.oid ?? null)
  }

  /** Hashes what the part already holds, so a resumed download is verified whole. */
  async function hashPart(hash: Hash, bytes: number) {
    if (bytes === 0) return
    await pipeline(createReadStream(partPath, { start: 0, end: bytes - 1 }), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) hash.update(chunk)
    })
  }

  /** One try: resume or start the part, verify it, rename it into place. */
  async function download(remote: Extract<ModelSource, { kind: 'remote' }>) {
    await mkdir(path.dirname(finalPath), { recursive: true })
    const described = await describeRemote(remote.url, remote.huggingFace)
    const expected = remote.sha256 ?? described.sha256
    if (remote.sha256 && described.sha256 && described.sha256 !== remote.sha256) {
      log.warn(
        { model: remote.displayName, pinned: remote.sha256, published: described.sha256 },
        'the server publishes another checksum than the pinned one: the pinned one is required',
      )
    }
    let totalBytes = described.totalBytes
    let offset = (await sizeOf(partPath)) ?? 0
    if (totalBytes !== null && offset > totalBytes) {
      await unlink(partPath)
      offset = 0
    }
    let response: Response | null = null
    if (totalBytes === null || offset < totalBytes) {
      response = await fetch(remote.url, {
        headers: offset > 0 ? { range: `bytes=${offset}-` } : {},
        redirect: 'follow',
        signal: abort.signal,
      })
      if (response.status === 416 && offset > 0) {
        // The part is longer than (or as long as) the file: check it as it is.
        await response.body?.cancel()
        response = null
      } else if (response.status === 404) {
        throw new AttemptError('not_found', `the server has no such file (${remote.url}: 404)`, false)
      } else if (!response.ok || !response.body) {
        await response.body?.cancel()
        throw new AttemptError('http', `the server answered ${response.status} for ${remote.url}`, true)
      } else if (offset > 0 && response.status !== 206) {
        // The server ignored the Range: the whole file comes again, so the part starts over.
        log.info({ model: remote.displayName, offset }, 'the server does not resume downloads: starting over')
        offset = 0
      } else if (response.status === 206) {
        const start = Number(/bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1] ?? Number.NaN)
        if (start !== offset) {
          await response.body.cancel()
          await unlink(partPath).catch(() => {})
          throw new AttemptError('http', `the server resumed at byte ${start}, not ${offset}: starting over`, true)
        }
      }
      if (response && totalBytes === null) {
        const length = Number(response.headers.get('content-length') ?? Number.NaN)
        if (length > 0) totalBytes = offset + length
      }
    }

    const hash = createHash('sha256')
    await hashPart(hash, offset)
    let received = offset
    if (response?.body) {
      const progress = createProgressReporter({
        name: remote.displayName,
        totalBytes,
        startBytes: offset,
        log,
        output: options.progressOutput ?? process.stdout,
      })
      current = { state: 'downloading', percent: progress.percent(offset), receivedBytes: offset, totalBytes }
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk)
          received += chunk.length
          current = { state: 'downloading', percent: progress.percent(received), receivedBytes: received, totalBytes }
          progress.update(received)
          done(null, chunk)
        },
      })
      try {
        await pipeline(
          Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>),
          meter,
          openWriter(partPath, { append: offset > 0 }),
          { signal: abort.signal },
        )
      } finally {
        progress.end()
      }
    }
    if (totalBytes !== null && received < totalBytes) {
      throw new AttemptError('offline', `the download was cut at ${received} of ${totalBytes} bytes`, true)
    }
    const digest = hash.digest('hex')
    if (expected && digest !== expected) {
      await unlink(partPath).catch(() => {})
      checksumFailures++
      throw new AttemptError(
        'checksum',
        `the downloaded file's SHA-256 is ${digest}, not ${expected}: it was deleted`,
        checksumFailures < 2,
      )
    }
    if (!expected)
      log.warn({ model: remote.displayName }, 'the server publishes no SHA-256 for this file: it is used unverified')
    await rename(partPath, finalPath)
    log.info(
      { model: remote.displayName, path: finalPath, bytes: received, sha256: digest },
      'embedded model downloaded',
    )
  }

  async function attempt() {
    if ((await sizeOf(finalPath)) !== null) return setReady()
    if (source.kind === 'local') {
      throw new AttemptError('not_found', `no model file at ${finalPath}`, false)
    }
    if (!allowDownload) {
      current = { state: 'missing' }
      log.info(
        { model: source.displayName, path: finalPath },
        'embedded model file absent; not downloaded under NODE_ENV=test',
      )
      return
    }
    log.info({ model: source.displayName, url: source.url, path: finalPath }, 'downloading the embedded model')
    await download(source)
    setReady()
  }

  function run() {
    if (closed || running) return
    running = attempt()
      .catch((error: unknown) => {
        if (closed) return
        fail(asAttemptError(error))
      })
      .finally(() => {
        running = undefined
      })
  }

  return {
    status: () => current,
    start() {
      if (started || closed) return
      started = true
      run()
    },
    ready(signal) {
      if (current.state === 'ready') return Promise.resolve(current.path)
      if (closed) return Promise.reject(new Error('the model file was closed'))
      return new Promise<string>((resolve, reject) => {
        const waiter = {
          resolve: (file: string) => {
            signal?.removeEventListener('abort', onAbort)
            resolve(file)
          },
          reject,
        }
        const onAbort = () => {
          waiters.delete(waiter)
          reject(signal?.reason ?? new Error('aborted'))
        }
        if (signal?.aborted) return onAbort()
        signal?.addEventListener('abort', onAbort, { once: true })
        waiters.add(waiter)
      })
    },
    async close() {
      closed = true
      clearTimeout(retryTimer)
      abort.abort()
      await running
      for (const waiter of waiters) waiter.reject(new Error('the model file was closed'))
      waiters.clear()
    },
  }
}

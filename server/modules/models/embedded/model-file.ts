import { existsSync, statSync } from 'node:fs'
import path from 'node:path'

/**
 * Where the embedded model's GGUF file is, and whether it is there yet. MINIMAL version of the
 * provider branch: it takes only a local `.gguf` path that exists; the download of an `hf:` URI
 * into DATA_DIR/models (resumable, checksum-verified, with progress) replaces this file.
 *
 * Interface kept by both: `createModelFile({ source, dataDir, log })` → `status()`, `ready(signal)`.
 */

export type ModelFileState = 'downloading' | 'ready' | 'failed'

export type ModelFileStatus = {
  state: ModelFileState
  /** Download progress, 0-100; null when unknown or not downloading. */
  percent: number | null
  failure: null | { code: string; hint: string }
}

export type ModelFile = {
  /** EMBEDDED_MODEL as given. */
  readonly source: string
  status(): ModelFileStatus
  /** The file's path once it is there; rejects with the failure when it cannot be had. */
  ready(signal?: AbortSignal): Promise<string>
}

export class ModelFileError extends Error {
  readonly code: string
  readonly hint: string
  constructor(code: string, message: string, hint: string) {
    super(message)
    this.name = 'ModelFileError'
    this.code = code
    this.hint = hint
  }
}

export function createModelFile(options: {
  source: string
  dataDir: string
  log: (info: Record<string, unknown>, msg: string) => void
}): ModelFile {
  const { source } = options
  const file = path.resolve(source)
  let failure: ModelFileError | undefined
  if (!/\.gguf$/i.test(source) || source.startsWith('hf:')) {
    failure = new ModelFileError(
      'unsupported_source',
      `EMBEDDED_MODEL "${source}" is not a local .gguf file`,
      'set EMBEDDED_MODEL to the path of a .gguf file on this machine (downloads are not supported by this build)',
    )
  } else if (!existsSync(file) || !statSync(file).isFile()) {
    failure = new ModelFileError(
      'file_missing',
      `the model file ${file} does not exist`,
      `place a .gguf file at ${file}, or set EMBEDDED_MODEL to the path of one`,
    )
  }
  if (failure) options.log({ source, code: failure.code, hint: failure.hint }, 'embedded model file not available')
  return {
    source,
    status: () =>
      failure
        ? { state: 'failed', percent: null, failure: { code: failure.code, hint: failure.hint } }
        : { state: 'ready', percent: null, failure: null },
    ready: (signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason)
      return failure ? Promise.reject(failure) : Promise.resolve(file)
    },
  }
}

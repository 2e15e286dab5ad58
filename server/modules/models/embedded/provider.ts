import { type Config, EMBEDDED_BASE_URL } from '#server/config.ts'
import { registerInProcessHandler } from '#server/modules/models/model-fetch.ts'
import { embeddedDisplayName } from '#server/modules/models/models.ts'
import { type Engine, EngineUnavailableError, loadEngine } from './engine.ts'
import { createFairQueue } from './fair-queue.ts'
import { createEmbeddedHandler, type HandlerState } from './handler.ts'
import { createModelFile, type ModelFile } from './model-file.ts'
import type { EmbeddedModelStatus } from './status.ts'

/**
 * The embedded model provider (ADR 036): when neither LLM_BASE_URL nor MODELS_FILE is set, chat
 * runs on a GGUF model inside this process. Start-up never waits for it: the file is made ready
 * (model-file.ts) and the model loaded in the background while the site serves; until then the
 * in-process endpoint answers 503 `model_preparing`. `status()` is what /readyz, /api/models and
 * the start-up log report.
 */

export type EmbeddedConfig = NonNullable<Config['llm']['embedded']>

/** The in-process endpoint's name: `embedded://local/v1` is the model's base URL. */
export const EMBEDDED_HOST = new URL(EMBEDDED_BASE_URL).host

export type EmbeddedProvider = {
  status(): EmbeddedModelStatus
  /** Resolves once the model is loaded (or failed); start() begins it. */
  start(): Promise<void>
  close(): Promise<void>
}

type Log = (info: Record<string, unknown>, msg: string) => void

export function createEmbeddedProvider(options: {
  config: EmbeddedConfig
  dataDir: string
  /** NODE_ENV=test: an `hf:` model is never downloaded. */
  downloads: boolean
  modelName: string
  log: Log
  warn: Log
  /** Called once the model is loaded, with its context (model-server-info learns it at once). */
  onReady?: () => void
}): EmbeddedProvider {
  const { config, log, warn } = options
  const displayName = embeddedDisplayName(config.source)
  const queue = createFairQueue(config.parallel)
  const abort = new AbortController()
  let file: ModelFile | undefined
  let engine: Engine | undefined
  let phase: 'file' | 'loading' | 'ready' | 'failed' = 'file'
  let failure: { code: string; hint: string } | null = null
  let started: Promise<void> | undefined

  const fail = (code: string, hint: string, error?: unknown) => {
    phase = 'failed'
    failure = { code, hint }
    warn({ source: config.source, code, hint, err: error }, 'embedded model not available: chat cannot answer')
  }

  function status(): EmbeddedModelStatus {
    const base = { source: config.source, displayName }
    if (phase === 'failed') return { ...base, state: 'failed', percent: null, failure }
    if (phase === 'ready') return { ...base, state: 'ready', percent: null, failure: null }
    if (phase === 'loading') return { ...base, state: 'loading', percent: null, failure: null }
    const fileStatus = file?.status()
    // A failed download is retried with backoff (model-file.ts): failed until a try succeeds.
    if (fileStatus?.state === 'failed') {
      return { ...base, state: 'failed', percent: null, failure: { code: fileStatus.code, hint: fileStatus.hint } }
    }
    if (fileStatus?.state === 'ready') return { ...base, state: 'loading', percent: null, failure: null }
    const percent = fileStatus?.state === 'downloading' ? fileStatus.percent : null
    return { ...base, state: 'downloading', percent, failure: null }
  }

  const handlerState = (): HandlerState => {
    const s = status()
    if (s.state === 'ready' && engine) return { state: 'ready', engine }
    if (s.state === 'failed') return { state: 'failed', failure: s.failure ?? { code: 'other', hint: '' } }
    return { state: s.state === 'ready' ? 'loading' : s.state, percent: s.percent }
  }
  const unregister = registerInProcessHandler(
    EMBEDDED_HOST,
    createEmbeddedHandler({ state: handlerState, queue, modelName: options.modelName }),
  )

  async function run() {
    if (!options.downloads && config.source.startsWith('hf:')) {
      fail('download_disabled', 'NODE_ENV=test never downloads a model: set EMBEDDED_MODEL to a local .gguf file')
      return
    }
    file = createModelFile({
      source: config.source,
      dataDir: options.dataDir,
      log: { info: (obj, msg) => log({ ...obj }, msg), warn: (obj, msg) => warn({ ...obj }, msg) },
    })
    file.start()
    let modelPath: string
    try {
      // Waits through the download and its retries; rejects only when closed.
      modelPath = await file.ready(abort.signal)
    } catch (error) {
      if (!abort.signal.aborted) fail('file_failed', 'the model file could not be prepared: see the log above', error)
      return
    }
    phase = 'loading'
    const startedAt = performance.now()
    try {
      engine = await loadEngine({
        modelPath,
        contextTokens: config.contextTokens,
        parallel: config.parallel,
        gpu: config.gpu,
        threads: config.threads,
        chatTemplateFile: config.chatTemplateFile,
        warn,
      })
    } catch (error) {
      if (error instanceof EngineUnavailableError) fail('engine_missing', error.message, error.cause)
      else fail('load_failed', `the model ${modelPath} could not be loaded: is it a valid .gguf file?`, error)
      return
    }
    if (abort.signal.aborted) {
      await engine.dispose()
      engine = undefined
      return
    }
    phase = 'ready'
    log(
      {
        model: displayName,
        path: modelPath,
        contextTokens: engine.contextTokens,
        parallel: engine.slots,
        gpu: engine.gpu,
        threads: config.threads,
        loadMs: Math.round(performance.now() - startedAt),
      },
      'embedded model loaded',
    )
    options.onReady?.()
  }

  return {
    status,
    start() {
      started ??= run()
      return started
    },
    async close() {
      abort.abort()
      unregister()
      await file?.close()
      await started?.catch(() => {})
      await engine?.dispose()
      engine = undefined
    },
  }
}

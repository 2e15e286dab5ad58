import type { EmbeddedModel, EmbeddedModelStatus } from './embedded/status.ts'
import type { ModelRegistry } from './models.ts'

/**
 * What the operator reads at start-up (ADR 037): which provider and model serve chat. Over HTTP,
 * each model's server (scheme, host and port: never a path or key) and the model it asks for; in
 * process, the model's source and its state. Then, for the embedded model, every change of state:
 * ready (info), failed (warn, with how to fix it). The download's own progress lines come from
 * embedded/model-file.ts.
 */

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }

function hostOf(baseUrl: string): string {
  try {
    const url = new URL(baseUrl)
    return `${url.protocol}//${url.host}`
  } catch {
    return 'an invalid URL'
  }
}

function logEmbedded(status: EmbeddedModelStatus, log: Log, first: boolean) {
  const info = { provider: 'embedded', model: status.displayName, source: status.source, state: status.state }
  if (status.state === 'failed') {
    log.warn(
      { ...info, code: status.failure?.code ?? null, hint: status.failure?.hint ?? null },
      'chat is served by the embedded model, which is not available: chat replies fail until it is fixed',
    )
  } else if (first) {
    log.info(
      { ...info, percent: status.percent },
      status.state === 'ready'
        ? 'chat is served by the embedded model'
        : `chat is served by the embedded model, being prepared (${status.state}): replies wait until it is ready`,
    )
  } else {
    log.info({ ...info, percent: status.percent }, `embedded model ${status.state}`)
  }
}

/** Logs what serves chat; for the embedded model, watches its state and logs each change until stopped. */
export function logChatProvider(options: {
  registry: ModelRegistry
  embedded: EmbeddedModel | undefined
  log: Log
  intervalMs?: number
}): () => void {
  const { registry, embedded, log } = options
  if (!embedded) {
    const models = registry.models.map((m) => ({ id: m.id, server: hostOf(m.baseUrl), model: m.model }))
    log.info(
      { provider: 'http', models },
      `chat is served over HTTP by ${models.map((m) => `${m.model} at ${m.server}`).join(', ')}`,
    )
    return () => {}
  }
  let last = embedded.status()
  logEmbedded(last, log, true)
  const timer = setInterval(() => {
    const now = embedded.status()
    if (now.state === last.state && now.failure?.code === last.failure?.code) return
    last = now
    logEmbedded(now, log, false)
  }, options.intervalMs ?? 1000)
  timer.unref()
  return () => clearInterval(timer)
}

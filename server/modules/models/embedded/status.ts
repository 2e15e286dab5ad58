import type { ChatProvider } from '#contracts/chat.ts'

/**
 * What the embedded model is doing (ADR 037), as the app's `embeddedModel` decorator reports it
 * (absent when chat runs on a model server over HTTP). The start-up log, `/readyz` and
 * `GET /api/models` read it; the chat page shows it.
 */
export type EmbeddedModelState = 'downloading' | 'loading' | 'ready' | 'failed'

export type EmbeddedModelStatus = {
  /** EMBEDDED_MODEL as given (an hf: URI, a URL or a path): for the operator's log only. */
  source: string
  /** The file's name or `owner/repo/file`: never a path on this machine. */
  displayName: string
  state: EmbeddedModelState
  /** The download's progress, 0 to 100; null when not downloading or the size is unknown. */
  percent: number | null
  /** Why it is not ready: a code (model-file.ts's, or the provider's when loading fails) and how to fix it. */
  failure: null | { code: string; hint: string }
}

export type EmbeddedModel = { status(): EmbeddedModelStatus }

declare module 'fastify' {
  interface FastifyInstance {
    /** The in-process model, when no model server is configured (undefined with an HTTP provider). */
    embeddedModel?: EmbeddedModel
  }
}

/**
 * What serves chat, as the public API says it: the kind, its state and progress, and a failure's
 * code (no paths, no hints: those are for the operator's log). An HTTP provider is `ready` while
 * one of its servers answers (ADR 031), `failed` when none does.
 */
export function chatProviderOf(embedded: EmbeddedModel | undefined, anyReachable: boolean): ChatProvider {
  if (!embedded) return { kind: 'http', state: anyReachable ? 'ready' : 'failed', percent: null, failure: null }
  const status = embedded.status()
  return {
    kind: 'embedded',
    state: status.state,
    percent: status.state === 'downloading' && status.percent !== null ? Math.floor(status.percent) : null,
    failure: status.state === 'failed' ? (status.failure?.code ?? 'other') : null,
  }
}

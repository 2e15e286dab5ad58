/**
 * The one `fetch` the model code uses (ADR 036): an `embedded://<name>/…` URL is answered in this
 * process by the handler registered under that name (the embedded model, no TCP port); every other
 * URL goes to the global fetch. llm-client hands it to the openai SDK (its `fetch` option);
 * model-server-info and model-health use it too, so all three work unchanged with either provider.
 */

export const EMBEDDED_PROTOCOL = 'embedded:'

export type InProcessHandler = (
  url: URL,
  init: { method?: string; body?: unknown; signal?: AbortSignal | null },
) => Promise<Response>

const handlers = new Map<string, InProcessHandler>()

/** Answers `embedded://<name>/…` with `handler` until the returned function is called. */
export function registerInProcessHandler(name: string, handler: InProcessHandler): () => void {
  handlers.set(name, handler)
  return () => {
    if (handlers.get(name) === handler) handlers.delete(name)
  }
}

export const isEmbeddedUrl = (url: string) => url.startsWith(`${EMBEDDED_PROTOCOL}//`)

export async function modelFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  if (!isEmbeddedUrl(href)) return fetch(input, init)
  const url = new URL(href)
  const handler = handlers.get(url.host)
  if (!handler) throw new TypeError(`fetch failed: no in-process model is running at ${url.origin}`)
  if (init.signal?.aborted) throw init.signal.reason
  return handler(url, { method: init.method ?? 'GET', body: init.body, signal: init.signal ?? null })
}

import { APIConnectionError, APIError } from 'openai'
import type { ModelHealth as ModelHealthStatus } from '#contracts/api-schemas.ts'
import { clientFor } from '#server/modules/models/llm-client.ts'
import { OPERATOR_HINTS } from '#server/modules/models/model-failures.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'

/**
 * At start and every minute, each configured model endpoint is asked for its model list
 * (`GET <baseUrl>/models`: cheap, and served by llama.cpp, vLLM, Ollama, LM Studio, OpenAI and
 * OpenRouter). What is wrong, and how to fix it, is logged at warn when a status changes; `/readyz`
 * and `GET /api/models` report the statuses (ADR 031). A model down never fails readiness: the
 * web app still serves everything else.
 *
 * - `ok`: the endpoint answered;
 * - `unreachable`: nothing answered (connection refused, DNS, timeout);
 * - `credentials_refused`: 401/403 (the API key);
 * - `failing`: it answered with another error;
 * - `unknown`: not checked yet.
 */

export type ModelHealthOptions = {
  models: readonly ModelConfig[]
  warn: (info: Record<string, unknown>, msg: string) => void
  info: (info: Record<string, unknown>, msg: string) => void
  /** 0: no periodic checks (statuses stay `unknown`). */
  intervalMs: number
  /** One check's deadline. */
  timeoutMs?: number
}

export function createModelHealth({ models, warn, info, intervalMs, timeoutMs = 5_000 }: ModelHealthOptions) {
  const statuses = new Map<string, ModelHealthStatus>(models.map((m) => [m.id, 'unknown']))
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<void> | undefined

  /** One request per endpoint (base URL and key), whatever the number of models behind it. */
  function endpoints() {
    const byKey = new Map<string, ModelConfig[]>()
    for (const model of models) {
      const key = `${model.baseUrl}\n${model.apiKey ?? ''}`
      byKey.set(key, [...(byKey.get(key) ?? []), model])
    }
    return [...byKey.values()]
  }

  async function probe(model: ModelConfig): Promise<{ status: ModelHealthStatus; detail?: string; listed?: string[] }> {
    try {
      const page = await clientFor(model).models.list({ timeout: timeoutMs, maxRetries: 0 })
      return { status: 'ok', listed: page.data.map((m) => m.id) }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error)
      if (error instanceof APIConnectionError) return { status: 'unreachable', detail }
      if (error instanceof APIError && (error.status === 401 || error.status === 403)) {
        return { status: 'credentials_refused', detail }
      }
      return { status: 'failing', detail }
    }
  }

  async function checkAll() {
    await Promise.all(
      endpoints().map(async (group) => {
        const [first] = group
        if (!first) return
        const result = await probe(first)
        for (const model of group) {
          const before = statuses.get(model.id)
          statuses.set(model.id, result.status)
          const where = { modelId: model.id, baseUrl: model.baseUrl, model: model.model }
          if (result.status === 'ok') {
            if (before !== 'ok' && before !== 'unknown') info(where, 'model server answers again')
            // llama.cpp serves any model name; Ollama, vLLM and OpenAI refuse names they do not list.
            if (before !== 'ok' && result.listed?.length && !result.listed.includes(model.model)) {
              warn(
                { ...where, listed: result.listed.slice(0, 20), hint: OPERATOR_HINTS.model_not_found },
                'model server does not list this model',
              )
            }
          } else if (before !== result.status) {
            const hint =
              result.status === 'unreachable'
                ? OPERATOR_HINTS.unreachable
                : result.status === 'credentials_refused'
                  ? OPERATOR_HINTS.credentials_refused
                  : OPERATOR_HINTS.other
            warn({ ...where, status: result.status, reason: result.detail, hint }, 'model server check failed')
          }
        }
      }),
    )
  }

  /** Runs one round of checks; a round already running is joined, not doubled. */
  function check(): Promise<void> {
    running ??= checkAll().finally(() => {
      running = undefined
    })
    return running
  }

  return {
    check,
    start() {
      if (intervalMs <= 0 || timer) return
      void check()
      timer = setInterval(() => void check(), intervalMs)
      timer.unref()
    },
    async stop() {
      clearInterval(timer)
      timer = undefined
      await running
    },
    /** Every model's last status. */
    statuses(): Record<string, ModelHealthStatus> {
      return Object.fromEntries(statuses)
    },
    /** False only when every model was checked and none answered. */
    anyReachable(): boolean {
      const all = [...statuses.values()]
      return all.length === 0 || all.some((s) => s === 'ok' || s === 'unknown')
    },
  }
}

export type ModelHealth = ReturnType<typeof createModelHealth>

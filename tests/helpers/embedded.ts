import { existsSync } from 'node:fs'
import path from 'node:path'
import { LLAMA_DIR } from '#tests/helpers/llama-server.ts'

/**
 * The embedded model (ADR 036) in tests: the tiny GGUF of ../shared/llama with a real chat
 * template (the file has none). Suites skip themselves (never pass) where either or node-llama-cpp
 * is absent.
 */
export const TINY_GGUF = path.join(LLAMA_DIR, 'tiny-llama.gguf')
export const QWEN3_TEMPLATE = path.join(LLAMA_DIR, 'templates', 'Qwen-Qwen3-0.6B.jinja')
const engineInstalled = await import('node-llama-cpp').then(
  () => true,
  () => false,
)
export const embeddedAvailable = existsSync(TINY_GGUF) && existsSync(QWEN3_TEMPLATE) && engineInstalled

/** The env that selects the embedded model on the tiny GGUF. */
export const embeddedEnv = (extra: Record<string, string> = {}) => ({
  LLM_BASE_URL: '',
  EMBEDDED_MODEL: TINY_GGUF,
  EMBEDDED_CHAT_TEMPLATE: QWEN3_TEMPLATE,
  EMBEDDED_GPU: 'off',
  LLM_HEALTH_INTERVAL_MS: '0',
  ...extra,
})

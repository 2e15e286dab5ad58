import { readFileSync } from 'node:fs'
import type {
  ChatHistoryItem,
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
} from 'node-llama-cpp'

/**
 * llama.cpp in this process, through node-llama-cpp (ADR 036): one model, one context with
 * `parallel` sequences that chats share, and the model's own chat template (from the GGUF, or
 * EMBEDDED_CHAT_TEMPLATE). Generation runs in node-llama-cpp's native threads; the event loop only
 * receives the tokens. The package is an optional dependency, imported only here and only when
 * the embedded provider starts.
 */

export type EngineOptions = {
  modelPath: string
  /** Tokens per sequence (EMBEDDED_CONTEXT). */
  contextTokens: number
  /** Sequences: chats generating at once (EMBEDDED_PARALLEL). */
  parallel: number
  gpu: 'auto' | 'off'
  /**
   * CPU threads (EMBEDDED_THREADS). More threads than free cores make llama.cpp's spinning threads
   * fight each other and the web server: generation slows down by orders of magnitude.
   */
  threads: number
  /** A Jinja chat template file that replaces the GGUF's own (EMBEDDED_CHAT_TEMPLATE). */
  chatTemplateFile?: string | undefined
  warn: (info: Record<string, unknown>, msg: string) => void
}

export type EngineMessage = { role: 'system' | 'user' | 'assistant'; content: string }

/** llama.cpp's sampling defaults (llama-server), used where a request sets nothing. */
export const LLAMA_DEFAULTS = { temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05 } as const

export type GenerateOptions = {
  maxTokens?: number | undefined
  temperature?: number | undefined
  topP?: number | undefined
  topK?: number | undefined
  minP?: number | undefined
  repetitionPenalty?: number | undefined
  presencePenalty?: number | undefined
  frequencyPenalty?: number | undefined
  seed?: number | undefined
  stop?: readonly string[] | undefined
  /** OpenAI's `logit_bias`: token id → bias added to its logit; -100 or less: never. */
  logitBias?: Readonly<Record<string, number>> | undefined
  /** `chat_template_kwargs.enable_thinking === false`: no thought tokens (budget 0). */
  thinking: boolean
  templateKwargs?: Record<string, unknown> | undefined
  signal: AbortSignal
  onContent: (text: string) => void
  onReasoning: (text: string) => void
}

export type GenerateResult = { finishReason: 'stop' | 'length'; promptTokens: number; completionTokens: number }

/** llama.cpp's 400 for a prompt longer than the context (`exceed_context_size_error`). */
export class ContextExceededError extends Error {
  readonly promptTokens: number
  readonly contextTokens: number
  constructor(promptTokens: number, contextTokens: number) {
    super('the request exceeds the available context size, try increasing it')
    this.name = 'ContextExceededError'
    this.promptTokens = promptTokens
    this.contextTokens = contextTokens
  }
}

/** node-llama-cpp is not installed (an API-only install: `npm ci --omit=optional`). */
export class EngineUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'node-llama-cpp is not installed (an install with --omit=optional leaves it out): run `npm install`, or set LLM_BASE_URL or MODELS_FILE to use a model server',
      { cause },
    )
    this.name = 'EngineUnavailableError'
  }
}

export type Engine = {
  /** The context of one sequence, in the model's tokens. */
  readonly contextTokens: number
  readonly slots: number
  /** Whether generation runs on a GPU, and which kind. */
  readonly gpu: string | false
  tokenize(text: string): number[]
  /** The prompt's size in tokens, as the chat template renders it. */
  promptTokens(messages: readonly EngineMessage[], templateKwargs?: Record<string, unknown>): number
  /** Generates on sequence `slot` (the caller holds it, fair-queue.ts). */
  generate(slot: number, messages: readonly EngineMessage[], options: GenerateOptions): Promise<GenerateResult>
  dispose(): Promise<void>
}

type NodeLlamaCpp = typeof import('node-llama-cpp')

async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp')
  } catch (error) {
    throw new EngineUnavailableError(error)
  }
}

/** The chat messages as node-llama-cpp's history; a trailing assistant message is continued. */
function historyOf(messages: readonly EngineMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = messages.map((m) =>
    m.role === 'system'
      ? { type: 'system', text: m.content }
      : m.role === 'user'
        ? { type: 'user', text: m.content }
        : { type: 'model', response: [m.content] },
  )
  if (history.at(-1)?.type !== 'model') history.push({ type: 'model', response: [] })
  return history
}

function biasOf(lib: NodeLlamaCpp, model: LlamaModel, logitBias: Readonly<Record<string, number>>) {
  const bias = new lib.TokenBias(model.tokenizer)
  for (const [token, value] of Object.entries(logitBias)) {
    const id = Number(token)
    if (Number.isInteger(id) && id >= 0) bias.set(id as never, value <= -100 ? 'never' : { logit: value })
  }
  return bias
}

export async function loadEngine(options: EngineOptions): Promise<Engine> {
  const lib = await importNodeLlamaCpp()
  // Prebuilt binaries only (the @node-llama-cpp/* packages): never a build, never a download.
  const llama: Llama = await lib.getLlama({
    build: 'never',
    gpu: options.gpu === 'off' ? false : 'auto',
    maxThreads: options.threads,
    logLevel: lib.LlamaLogLevel.warn,
    logger: (level, message) => {
      if (level === lib.LlamaLogLevel.error || level === lib.LlamaLogLevel.warn) {
        options.warn({ level, message: message.trim() }, 'llama.cpp')
      }
    },
  })
  let model: LlamaModel | undefined
  let context: LlamaContext | undefined
  try {
    model = await llama.loadModel({ modelPath: options.modelPath })
    context = await model.createContext({
      contextSize: Math.min(options.contextTokens, model.trainContextSize),
      sequences: options.parallel,
      threads: options.threads,
      // On the CPU, flash attention as llama-server's default (`-fa auto`) resolves it: on. The
      // package's "auto" leaves it off there, which costs about 7 % a token on the
      // generated 290 M-parameter model of bench:embedded
      // (docs/performance.md). GPUs keep the package's choice.
      flashAttention: llama.gpu === false ? true : 'auto',
    })
  } catch (error) {
    await context?.dispose()
    await model?.dispose()
    await llama.dispose()
    throw error
  }
  const loadedModel = model
  const loadedContext = context
  const sequences: LlamaContextSequence[] = Array.from({ length: options.parallel }, () => loadedContext.getSequence())
  const template = options.chatTemplateFile ? readFileSync(options.chatTemplateFile, 'utf8') : undefined

  /** One chat wrapper per set of template arguments (usually one or two: thinking on and off). */
  const wrappers = new Map<string, ChatWrapper>()
  function wrapperFor(kwargs: Record<string, unknown> = {}): ChatWrapper {
    const key = JSON.stringify(kwargs)
    let wrapper = wrappers.get(key)
    if (wrapper) return wrapper
    const jinja = template ?? loadedModel.fileInfo.metadata.tokenizer?.chat_template
    if (jinja) {
      wrapper = new lib.JinjaTemplateChatWrapper({
        template: jinja,
        tokenizer: loadedModel.tokenizer,
        additionalRenderParameters: kwargs,
        ...(kwargs.enable_thinking === false ? { reasoning: false } : {}),
        segments: { thoughtTemplate: '<think>{{content}}</think>' },
      })
    } else {
      // No template in the file: node-llama-cpp's guess from the architecture and file name.
      wrapper =
        lib.resolveChatWrapper({
          bosString: loadedModel.tokens.bosString,
          filename: loadedModel.filename,
          fileInfo: loadedModel.fileInfo,
          tokenizer: loadedModel.tokenizer,
        }) ?? new lib.GeneralChatWrapper()
    }
    wrappers.set(key, wrapper)
    return wrapper
  }

  const promptTokens = (messages: readonly EngineMessage[], kwargs?: Record<string, unknown>) =>
    wrapperFor(kwargs)
      .generateContextState({ chatHistory: historyOf(messages) })
      .contextText.tokenize(loadedModel.tokenizer).length

  return {
    contextTokens: loadedContext.contextSize,
    slots: options.parallel,
    gpu: llama.gpu,
    tokenize: (text) => [...loadedModel.tokenize(text)],
    promptTokens,
    async generate(slot, messages, o) {
      const sequence = sequences[slot]
      if (!sequence) throw new RangeError(`no sequence ${slot}`)
      const prompt = promptTokens(messages, o.templateKwargs)
      const room = loadedContext.contextSize - prompt
      if (room < 1) throw new ContextExceededError(prompt, loadedContext.contextSize)
      const chat = new lib.LlamaChat({
        contextSequence: sequence,
        chatWrapper: wrapperFor(o.templateKwargs),
        autoDisposeSequence: false,
      })
      let completionTokens = 0
      try {
        const penalties =
          o.repetitionPenalty !== undefined || o.presencePenalty !== undefined || o.frequencyPenalty !== undefined
        const result = await chat.generateResponse(historyOf(messages), {
          signal: o.signal,
          maxTokens: Math.min(o.maxTokens ?? room, room),
          temperature: o.temperature ?? LLAMA_DEFAULTS.temperature,
          topK: o.topK ?? LLAMA_DEFAULTS.topK,
          topP: o.topP ?? LLAMA_DEFAULTS.topP,
          minP: o.minP ?? LLAMA_DEFAULTS.minP,
          ...(o.seed === undefined ? {} : { seed: o.seed }),
          repeatPenalty: penalties
            ? {
                lastTokens: 64,
                penalty: o.repetitionPenalty ?? 1,
                presencePenalty: o.presencePenalty ?? 0,
                frequencyPenalty: o.frequencyPenalty ?? 0,
              }
            : false,
          ...(o.stop?.length ? { customStopTriggers: o.stop } : {}),
          ...(o.logitBias ? { tokenBias: biasOf(lib, loadedModel, o.logitBias) } : {}),
          ...(o.thinking ? {} : { budgets: { thoughtTokens: 0 } }),
          // The history is never cut silently: the caller trims it (ADR 031), as with llama-server.
          contextShift: {
            strategy: () => {
              throw new ContextExceededError(prompt + completionTokens, loadedContext.contextSize)
            },
          },
          onResponseChunk: (chunk) => {
            completionTokens += chunk.tokens.length
            if (!chunk.text) return
            if (chunk.type === 'segment') {
              if (chunk.segmentType === 'thought') o.onReasoning(chunk.text)
            } else {
              o.onContent(chunk.text)
            }
          },
        })
        return {
          finishReason: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
          promptTokens: prompt,
          completionTokens,
        }
      } finally {
        chat.dispose({ disposeSequence: false })
      }
    },
    async dispose() {
      await loadedContext.dispose()
      await loadedModel.dispose()
      await llama.dispose()
    },
  }
}

import { modelFetch } from './model-fetch.ts'
import type { ModelConfig } from './models.ts'
import { countTokens, tokenizerReady } from './tokens.ts'

/**
 * What the product learns from a model server (ADR 030): the context the model really takes and
 * how its tokenizer counts each script compared with ours (o200k, tokens.ts).
 *
 * - Context: llama.cpp `GET /props` (`default_generation_settings.n_ctx`) or `/v1/models`
 *   (`meta.n_ctx`), vLLM `/v1/models` (`max_model_len`), OpenRouter `/v1/models`
 *   (`context_length`), Ollama `/api/ps` (`context_length` of the loaded model) or `/api/show`
 *   (`num_ctx` parameter; else Ollama's own default, never the model's trained length, which its
 *   OpenAI endpoint does not use). MODELS_FILE's `contextTokens`, when given, wins.
 * - Tokenizer: where the server has `POST /tokenize` (llama.cpp, vLLM), one sample text per script
 *   is tokenized there and compared with our count; elsewhere a conservative prior (Llama-family
 *   vocabularies) until the server's reported `usage.prompt_tokens` correct it.
 *
 * Learned once, kept 10 minutes, then refreshed in the background (the send path never waits for
 * a refresh, only for the very first probe of a model, bounded by PROBE_TIMEOUT_MS). Nothing here
 * adds a network round trip per send.
 */

export const REFRESH_MS = 10 * 60_000
/** A server that could not be asked is asked again after this long. */
export const RETRY_MS = 60_000
export const PROBE_TIMEOUT_MS = 3000
/** Kept free of the server's context for what our estimate may still miss. */
export const SAFETY_MARGIN = 0.1
/** How much of the chat's sample text is looked at. */
const SAMPLE_CHARS = 1000
/** Weight of one reported `usage.prompt_tokens` in the smoothed correction. */
const SMOOTHING = 0.3

export const SCRIPTS = ['latin', 'cyrillic', 'arabic', 'devanagari', 'thai', 'cjk', 'hangul'] as const
export type Script = (typeof SCRIPTS)[number]
type Factors = Record<Script, number>

// One run of a script, with the spaces, digits and punctuation inside it; the rest counts as latin.
const RUN: Record<Exclude<Script, 'latin'>, string> = {
  cyrillic: '\\p{Script=Cyrillic}',
  arabic: '\\p{Script=Arabic}',
  devanagari: '\\p{Script=Devanagari}\\p{Script=Bengali}\\p{Script=Tamil}\\p{Script=Telugu}',
  thai: '\\p{Script=Thai}',
  cjk: '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}',
  hangul: '\\p{Script=Hangul}',
}
const RUNS = new RegExp(
  Object.values(RUN)
    .map((chars) => `([${chars}][${chars}\\p{Zs}\\p{P}\\p{N}]*)`)
    .join('|'),
  'gu',
)
const RUN_SCRIPTS = Object.keys(RUN) as Exclude<Script, 'latin'>[]

/**
 * The text cut into runs of one script each, with the size of each run: our tokens for Latin text,
 * characters for the others. A vocabulary that splits a script finer than o200k (a Llama-2 one
 * falls back to about a token per Arabic, Thai or Hindi character) follows the characters far more
 * closely than o200k's merges: measured on llama.cpp, server tokens per character vary by ±6%
 * between texts, per o200k token by ±15%.
 */
type Run = { script: Script; text: string; units: number }

export function scriptRuns(text: string): Run[] {
  const runs: Run[] = []
  const latin = (part: string) => runs.push({ script: 'latin', text: part, units: countTokens(part) })
  let at = 0
  for (const match of text.matchAll(RUNS)) {
    if (match.index > at) latin(text.slice(at, match.index))
    const group = match.slice(1).findIndex((g) => g !== undefined)
    runs.push({ script: RUN_SCRIPTS[group] ?? 'latin', text: match[0], units: [...match[0]].length })
    at = match.index + match[0].length
  }
  if (at < text.length) latin(text.slice(at))
  return runs
}

/** The size of a text in its scripts' units (see scriptRuns). */
const unitsOf = (text: string) => scriptRuns(text).reduce((sum, run) => sum + run.units, 0)

/** Samples the server tokenizes to compare with our count (a few sentences of each script). */
const SAMPLES: Record<Script, string> = {
  latin:
    'The old lighthouse keeper climbed the stairs slowly, counting every step. "Storm tonight," she said, and lit the lamp before the first wave broke against the rocks.',
  cyrillic:
    'Старый смотритель маяка медленно поднимался по лестнице, считая каждую ступеньку. «Сегодня будет шторм», — сказала она и зажгла лампу.',
  arabic:
    'صعدت حارسة المنارة العجوز الدرج ببطء، وهي تعد كل درجة. قالت: «عاصفة الليلة»، وأشعلت المصباح قبل أن تتكسر الموجة الأولى على الصخور.',
  devanagari:
    'बूढ़ी प्रकाशस्तंभ रक्षक धीरे-धीरे सीढ़ियाँ चढ़ी, हर कदम गिनते हुए। "आज रात तूफ़ान आएगा," उसने कहा और पहली लहर टूटने से पहले दीपक जला दिया।',
  thai: 'ผู้ดูแลประภาคารชราเดินขึ้นบันไดช้าๆ นับทุกขั้น "คืนนี้พายุจะมา" เธอพูด แล้วจุดตะเกียงก่อนที่คลื่นลูกแรกจะซัดโขดหิน',
  cjk: '年老的灯塔看守人慢慢地爬上楼梯，数着每一级台阶。“今晚有暴风雨，”她说，在第一道浪打到岩石上之前点亮了灯。',
  hangul:
    '늙은 등대지기는 계단을 하나하나 세며 천천히 올라갔다. "오늘 밤에 폭풍이 와," 그녀는 말하고 첫 파도가 바위에 부딪히기 전에 등불을 켰다.',
}

/**
 * How many server tokens one of ours is, per script, before any measurement: o200k is exact for
 * OpenAI; for other vocabularies, what Llama-family ones measured (issue 18), so a prompt errs short.
 */
const PER_OUR_TOKEN: Factors = { latin: 1.2, cyrillic: 1.6, arabic: 3, devanagari: 3, thai: 2.2, cjk: 1.7, hangul: 2 }
const clampFactor = (f: number) => Math.min(8, Math.max(0.05, f))
/** The same per script unit (characters outside Latin), converted on the samples: no figure of our own. */
const perUnit = (perOurToken: Factors) =>
  Object.fromEntries(
    SCRIPTS.map((script) => [script, (perOurToken[script] * countTokens(SAMPLES[script])) / unitsOf(SAMPLES[script])]),
  ) as Factors
const ONES: Factors = { latin: 1, cyrillic: 1, arabic: 1, devanagari: 1, thai: 1, cjk: 1, hangul: 1 }
// Computed on first use: the samples are counted with the tokenizer, which loads on first need (ADR 067).
let llamaPrior: Factors | undefined
const llamaPriorOf = () => {
  llamaPrior ??= perUnit(PER_OUR_TOKEN)
  return llamaPrior
}

type Learned = {
  /** The server's context, when it told it. */
  contextTokens: number | undefined
  /** Where `POST {root}/tokenize` answers, and in which dialect. */
  tokenize: 'llama.cpp' | 'vllm' | undefined
  /**
   * How many tokens the server counted in each sample; undefined: the prior. Turned into factors
   * on first use (`factorsOf`), so a probe at start does not load our tokenizer.
   */
  sampleCounts: Factors | undefined
  factors?: Factors | undefined
}

type Entry = {
  /** The server counts as o200k does (OpenAI): our counts are its own. */
  exact: boolean
  learned: Learned | undefined
  fetchedAt: number
  ok: boolean
  pending: Promise<void> | undefined
  /** Smoothed `usage.prompt_tokens / our estimate`, per script: the chat template's overhead and what the factors miss. */
  correction: Factors
  /** The last sample's ratio (a turn asks twice with its user's message); cleared when a factor changes. */
  last: { sample: string; ratio: number } | undefined
}

const entries = new Map<string, Entry>()
const keyOf = (model: Pick<ModelConfig, 'baseUrl' | 'model'>) => `${model.baseUrl}\n${model.model}`

/** The server's root: `/v1` (and a trailing slash) removed from the OpenAI base URL. */
export const serverRoot = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')

async function getJson(url: string, apiKey: string | undefined, init: { method?: string; body?: unknown } = {}) {
  try {
    const res = await modelFetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      redirect: 'error',
    })
    if (!res.ok) {
      await res.body?.cancel()
      return undefined
    }
    return (await res.json()) as unknown
  } catch {
    return undefined
  }
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
const posInt = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined)

/** `/v1/models`: llama.cpp's `meta.n_ctx`, vLLM's `max_model_len`, OpenRouter's `context_length`. */
function contextFromModelsList(list: unknown, model: string): number | undefined {
  const data = obj(list).data
  if (!Array.isArray(data)) return undefined
  const entry = obj(data.find((m) => obj(m).id === model) ?? (data.length === 1 ? data[0] : undefined))
  return (
    posInt(obj(entry.meta).n_ctx) ??
    posInt(entry.max_model_len) ??
    posInt(obj(entry.top_provider).context_length) ??
    posInt(entry.context_length)
  )
}

/**
 * Ollama: the loaded model's context (`/api/ps`) is what its OpenAI endpoint really takes; else the
 * model's `num_ctx` parameter; else Ollama's default (2048 before 0.6, 4096 since). The trained
 * `<arch>.context_length` is only an upper bound: the OpenAI endpoint truncates to num_ctx.
 */
async function ollamaContext(root: string, model: ModelConfig): Promise<number | undefined> {
  const show = obj(await getJson(`${root}/api/show`, model.apiKey, { method: 'POST', body: { model: model.model } }))
  const info = obj(show.model_info)
  if (Object.keys(info).length === 0) return undefined
  const arch = info['general.architecture']
  const trained = typeof arch === 'string' ? posInt(info[`${arch}.context_length`]) : undefined
  const ps = obj(await getJson(`${root}/api/ps`, model.apiKey)).models
  const loaded = Array.isArray(ps)
    ? posInt(obj(ps.find((m) => [obj(m).name, obj(m).model].includes(model.model))).context_length)
    : undefined
  const numCtx = posInt(Number(/^num_ctx\s+(\d+)\s*$/m.exec(String(show.parameters ?? ''))?.[1]))
  let context = loaded ?? numCtx
  if (context === undefined) {
    const version = String(obj(await getJson(`${root}/api/version`, model.apiKey)).version ?? '')
    const [major = 0, minor = 0] = version.split('.').map(Number)
    context = major === 0 && minor < 6 ? 2048 : 4096
  }
  return trained ? Math.min(context, trained) : context
}

/** How the server counts each sample: llama.cpp `{content}` → `{tokens}`, vLLM `{model, prompt}` → `{count}`. */
async function measureSamples(root: string, model: ModelConfig, dialect: 'llama.cpp' | 'vllm') {
  const counts = { ...ONES }
  for (const script of SCRIPTS) {
    const body =
      dialect === 'llama.cpp' ? { content: SAMPLES[script] } : { model: model.model, prompt: SAMPLES[script] }
    const answer = obj(await getJson(`${root}/tokenize`, model.apiKey, { method: 'POST', body }))
    const count = Array.isArray(answer.tokens) ? answer.tokens.length : posInt(answer.count)
    if (!count) return undefined
    counts[script] = count
  }
  return counts
}

/** Server tokens per script unit: measured (converted once, with the tokenizer loaded), else the prior. */
function factorsOf(learned: Learned | undefined): Factors {
  if (!learned?.sampleCounts) return llamaPriorOf()
  if (!learned.factors) {
    const counts = learned.sampleCounts
    learned.factors = Object.fromEntries(
      SCRIPTS.map((script) => [script, clampFactor(counts[script] / unitsOf(SAMPLES[script]))]),
    ) as Factors
  }
  return learned.factors
}

const isOpenAi = (baseUrl: string) => /(^|\.)openai\.com$/.test(new URL(baseUrl).hostname)

async function probe(model: ModelConfig): Promise<Learned | undefined> {
  // OpenAI tells no context and has no /tokenize; o200k is its tokenizer.
  if (isOpenAi(model.baseUrl)) return { contextTokens: undefined, tokenize: undefined, sampleCounts: undefined }
  const root = serverRoot(model.baseUrl)
  const props = obj(await getJson(`${root}/props`, model.apiKey))
  const list = await getJson(`${model.baseUrl.replace(/\/+$/, '')}/models`, model.apiKey)
  let contextTokens = posInt(obj(props.default_generation_settings).n_ctx) ?? contextFromModelsList(list, model.model)
  const data = obj(list).data
  const vllm = Array.isArray(data) && data.some((m) => obj(m).owned_by === 'vllm')
  const tokenize = 'default_generation_settings' in props ? 'llama.cpp' : vllm ? 'vllm' : undefined
  if (contextTokens === undefined) contextTokens = await ollamaContext(root, model)
  const measured = tokenize ? await measureSamples(root, model, tokenize) : undefined
  if (list === undefined && contextTokens === undefined && !measured) return undefined
  return { contextTokens, tokenize: measured ? tokenize : undefined, sampleCounts: measured }
}

function entryOf(model: ModelConfig): Entry {
  const key = keyOf(model)
  let entry = entries.get(key)
  if (!entry) {
    entry = {
      exact: isOpenAi(model.baseUrl),
      learned: undefined,
      fetchedAt: 0,
      ok: false,
      pending: undefined,
      correction: { ...ONES },
      last: undefined,
    }
    entries.set(key, entry)
  }
  return entry
}

/** Asks the server again now (also after it refused a prompt as too long). Resolves when done. */
export function refreshModelInfo(model: ModelConfig): Promise<void> {
  const entry = entryOf(model)
  entry.pending ??= probe(model)
    .then((learned) => {
      entry.ok = learned !== undefined
      if (learned) entry.learned = learned
      entry.last = undefined
      entry.fetchedAt = Date.now()
    })
    .finally(() => {
      entry.pending = undefined
    })
  return entry.pending
}

async function current(model: ModelConfig): Promise<Entry> {
  const entry = entryOf(model)
  if (entry.fetchedAt === 0) await refreshModelInfo(model)
  else if (Date.now() - entry.fetchedAt > (entry.ok ? REFRESH_MS : RETRY_MS)) void refreshModelInfo(model)
  return entry
}

const factorOf = (entry: Entry, script: Script) => factorsOf(entry.learned)[script] * entry.correction[script]

function estimate(entry: Entry, text: string): number {
  let total = 0
  for (const run of scriptRuns(text)) {
    total += entry.exact
      ? countTokens(run.text) * entry.correction[run.script]
      : run.units * factorOf(entry, run.script)
  }
  return Math.ceil(total)
}

/** The server's context as known now: MODELS_FILE's, else the server's, else the default. */
function serverContext(model: ModelConfig, entry: Entry): number {
  return model.contextConfigured ? model.contextTokens : (entry.learned?.contextTokens ?? model.contextTokens)
}

export type ModelContext = {
  /** The model's context in the server's tokens. */
  serverContextTokens: number
  /**
   * What the chat may fill, in OUR token counts (tokens.ts, the counts stored with each message):
   * the server's context less the safety margin, divided by how many server tokens one of ours is
   * for text like `sample`.
   */
  contextTokens: number
  /** The longest reply to ask for, when the operator capped it. */
  maxReplyTokens: number | undefined
  /** How many server tokens one of ours is for text like `sample`: what the window was sized with. */
  serverTokensPerOurs: number
  /** Our count of a text converted to the server's tokens (an estimate, corrected as replies come). */
  count: (text: string) => number
}

/**
 * The model's effective context and token counter, for the chat's window and budget. `sample`: a
 * text in the chat's language (e.g. its newest message), to convert our counts for its script.
 */
export async function modelContext(model: ModelConfig, sample = ''): Promise<ModelContext> {
  // Every caller sizes a prompt next, counting synchronously: this is where the tokenizer loads.
  await tokenizerReady()
  const entry = await current(model)
  // The start of the text tells its script as well as the whole: the cost stays bounded.
  const text = sample.slice(0, SAMPLE_CHARS)
  let ratio = entry.last?.sample === text ? entry.last.ratio : undefined
  if (ratio === undefined) {
    const ours = countTokens(text)
    ratio = ours > 0 ? estimate(entry, text) / ours : entry.exact ? 1 : factorOf(entry, 'latin')
    entry.last = { sample: text, ratio }
  }
  const serverContextTokens = serverContext(model, entry)
  return {
    serverContextTokens,
    contextTokens: Math.max(1, Math.floor((serverContextTokens * (1 - SAFETY_MARGIN)) / Math.max(ratio, 0.5))),
    maxReplyTokens: model.maxReplyTokens,
    serverTokensPerOurs: ratio,
    count: (text) => estimate(entry, text),
  }
}

/** The context a model shows in the models list: the one it is known to take now. */
export function knownContextTokens(model: ModelConfig): number {
  const entry = entries.get(keyOf(model))
  return entry ? serverContext(model, entry) : model.contextTokens
}

/**
 * The server's `usage.prompt_tokens` for a prompt we estimated at `estimated` server tokens (with
 * `count` of `modelContext`): corrects future estimates for the prompt's main script, smoothed.
 */
export function recordPromptUsage(model: ModelConfig, sample: string, estimated: number, promptTokens: number): void {
  if (!(estimated > 0 && promptTokens > 0)) return
  const entry = entryOf(model)
  const main = scriptRuns(sample).reduce<Run>((best, run) => (run.units > best.units ? run : best), {
    script: 'latin',
    text: '',
    units: 0,
  }).script
  const next = entry.correction[main] * (1 - SMOOTHING + SMOOTHING * (promptTokens / estimated))
  entry.correction[main] = Math.min(4, Math.max(0.25, next))
  entry.last = undefined
}

/**
 * The server refused a prompt as longer than its context (llama.cpp's `exceed_context_size_error`
 * tells `n_prompt_tokens` and `n_ctx`): what it said is kept at once, and the server asked again.
 */
export function recordContextExceeded(
  model: ModelConfig,
  sample: string,
  estimated: number,
  reported: { promptTokens?: number | undefined; contextTokens?: number | undefined } = {},
): Promise<void> {
  const entry = entryOf(model)
  if (reported.contextTokens && entry.learned) entry.learned.contextTokens = reported.contextTokens
  if (reported.promptTokens) recordPromptUsage(model, sample, estimated, reported.promptTokens)
  return refreshModelInfo(model)
}

/** For tests: forget everything learned. */
export function forgetModelInfo(): void {
  entries.clear()
}

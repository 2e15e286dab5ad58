import { randomUUID } from 'node:crypto'
import type { ImpersonateDone } from '#contracts/chat-writing-aids.ts'
import type { Locale } from '#contracts/locales.ts'
import type { AppError } from '#server/lib/errors.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import type { Entitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { samplingParams } from '#server/modules/models/generation-settings.ts'
import { LlmError, opaqueUserId, streamChat } from '#server/modules/models/llm-client.ts'
import { modelContext } from '#server/modules/models/model-server-info.ts'
import { effectiveSettings } from '#server/modules/models/user-settings.ts'
import { authorNoteOf } from './authors-note.ts'
import type { ChatRepo } from './chat.repo.ts'
import { characterOf, type ErrorEventData, failedTurn, invalidSession, requireCharacter, UUID } from './chat-views.ts'
import { reasoningFields, type StreamLimits, timeLimitsOf } from './generation.ts'
import { loadHistory, olderCharacterMessages } from './history.ts'
import { chatLanguage, languageLabel } from './language.ts'
import type { ModelActivity } from './model-activity.ts'
import { buildPrompt, contextWindow } from './prompt.ts'
import { createNameStripper } from './scene-prompt.ts'
import type { Scenes } from './scenes.ts'
import type { TurnSlots } from './turn-slots.ts'

/**
 * Impersonate's instruction (docs/prompt.md): said last, in place of the card's post-history
 * instructions, so neither the card's system prompt nor its other texts can remove it. The
 * language line names the chat's language (ADR 038).
 */
export function impersonateInstruction(language: Locale | null): string {
  const where = language ? `in ${languageLabel(language)}` : 'in the language {{user}} writes in'
  return [
    "For this turn only, you write {{user}}'s next message in the role-play, not {{char}}'s reply.",
    "Write it as {{user}} would, in {{user}}'s own voice and person, following the story so far and the way {{user}} has written.",
    'Write only what {{user}} says, does and thinks; never write for {{char}} or anyone else, and add no name label, comment or quotation marks around it.',
    `Keep it about as long as {{user}}'s usual messages. Write it ${where}.`,
  ].join(' ')
}

export type ImpersonateHooks = {
  signal?: AbortSignal | undefined
  /** The model is being asked. */
  onStart(start: { modelId: string }): void
  onDelta(text: string): void
}

export type ImpersonateOutcome =
  | { kind: 'done'; result: ImpersonateDone }
  | { kind: 'stopped'; content: string }
  | { kind: 'failed'; error: AppError; event: ErrorEventData }

export type ImpersonateDeps = {
  repo: Pick<ChatRepo, 'findSession' | 'recentMessages' | 'countCharacterMessagesBefore' | 'inTransaction'>
  entitlements: Pick<Entitlements, 'planOf' | 'decideTurn' | 'withReservation'>
  diamonds: Pick<DiamondsService, 'balanceOf'>
  slots: Pick<TurnSlots, 'withSlot'>
  /** A scene's cast (ADR 052): the other characters' lines named, as in a reply's prompt. */
  scenes?: Pick<Scenes, 'castFor'> | undefined
  activity?: Pick<ModelActivity, 'replyStarted'> | undefined
  timeoutMs: number
  streamLimits?: StreamLimits | undefined
  log: (info: Record<string, unknown>, msg: string) => void
}

/**
 * Impersonate (ADR 053): the chat's model drafts the user's next message, as the chat's persona
 * and in the chat's language, streamed to the composer and stored nowhere. It is a model call like
 * a reply and costs what a reply of that model costs: nothing for a free model (the send rate limit
 * counts it), a premium model's price reserved before the call, spent when the draft is complete,
 * given back on a failure or a stop (ADR 024). It takes the chat's one slot, so Stop stops it.
 */
export function createImpersonate(deps: ImpersonateDeps) {
  const { repo, entitlements, diamonds, slots, scenes, activity, timeoutMs, streamLimits, log } = deps

  return async function impersonate(
    userId: string,
    input: { sessionId: string; chatModelId?: string | undefined; locale?: Locale | undefined },
    hooks: ImpersonateHooks,
  ): Promise<ImpersonateOutcome> {
    if (!UUID.test(input.sessionId)) throw invalidSession()
    const session = await repo.findSession(input.sessionId, userId)
    if (!session) throw invalidSession()
    requireCharacter(session)
    const turn = entitlements.decideTurn(entitlements.planOf(session.paidPlanId), input.chatModelId, session.modelId)
    const { model, plan, price } = turn
    return slots.withSlot(session.id, hooks.signal, (slot) =>
      entitlements.withReservation(userId, turn, async (reservation) => {
        const started = activity?.replyStarted(model)
        try {
          await started?.ready
          const fit = await modelContext(model, session.lastMessagePreview ?? '')
          const settings = effectiveSettings(model, session)
          const window = contextWindow(plan.memoryK, fit.contextTokens, settings.replyTokens)
          const loaded = await loadHistory(repo, session.id, window.budgetTokens)
          // In a scene, the card of the character who would answer next and the others' lines named.
          const cast = await scenes?.castFor({ session, history: loaded.history, requested: null, keepOf: null })
          const character = cast?.character ?? characterOf(session)
          const language = chatLanguage(session.language, input.locale)
          const prompt = buildPrompt({
            sceneNote: cast?.note,
            character,
            userName: session.username,
            persona: session.personaDescription,
            authorNote: authorNoteOf(session),
            memoryNote: session.memoryNote,
            history: cast?.history ?? loaded.history,
            olderExist: loaded.olderExist,
            olderCharacterMessages: await olderCharacterMessages(repo, session.id, loaded, character.lorebook),
            budgetTokens: window.budgetTokens,
            promptStyle: model.promptStyle,
            language,
            finalInstruction: impersonateInstruction(language),
          })
          const stream = streamChat({
            model,
            messages: prompt.messages,
            signal: slot.signal,
            ...timeLimitsOf(model, timeoutMs, streamLimits),
            maxTokens: window.replyReserveTokens,
            user: opaqueUserId(userId),
            extraBody: {
              ...samplingParams(model, { user: session.username, char: character.name }),
              ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
              ...reasoningFields(model),
            },
          })
          hooks.onStart({ modelId: model.id })
          let text = ''
          let failure: LlmError | undefined
          // A draft that opens with the user's own "Name:" (the scene's history is written so) loses it.
          const stripper = createNameStripper(session.username)
          const take = (piece: string) => {
            if (!piece) return
            text += piece
            hooks.onDelta(piece)
          }
          try {
            for (let step = await stream.next(); !step.done; step = await stream.next()) take(stripper.push(step.value))
          } catch (error) {
            if (!(error instanceof LlmError)) throw error
            failure = error
          }
          take(stripper.flush())
          if (!failure && !text.trim()) failure = new LlmError('invalid', 'The model sent an empty reply')
          if (!failure) {
            // A premium draft is paid once it is complete, as a reply is (reason `chat`).
            if (reservation) {
              await reservation.commit((pay) => repo.inTransaction((tx) => pay(tx, `chat-impersonate:${randomUUID()}`)))
            }
            return {
              kind: 'done',
              result: {
                content: text,
                modelId: model.id,
                diamondsSpent: price,
                balance: await diamonds.balanceOf(userId),
              },
            }
          }
          if (failure.kind === 'aborted' && slot.reason() !== 'shutdown') return { kind: 'stopped', content: text }
          const shutdown = slot.reason() === 'shutdown'
          log({ sessionId: session.id, modelId: model.id, kind: failure.kind, err: failure }, 'impersonate failed')
          return failedTurn(failure, shutdown, { partialKept: false, reply: null, userMessageId: null })
        } finally {
          started?.end()
        }
      }),
    )
  }
}

export type Impersonate = ReturnType<typeof createImpersonate>

import { api } from '#app/lib/http.ts'
import type { ChatSettings } from '#contracts/chat.ts'

/**
 * Sets the chat's temperature and reply length (null: the model's default) within the bounds of
 * `chatModelId`, and its language (null: the site's).
 */
export const updateChatSettings = (sessionId: string, settings: ChatSettings, chatModelId?: string) =>
  api<ChatSettings>('/session/settings/update', { method: 'POST', body: { sessionId, chatModelId, ...settings } })

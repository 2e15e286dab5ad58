import { eq } from 'drizzle-orm'
import type { MessageAuthor } from '#contracts/chat.ts'
import type { Db } from '#db/client.ts'
import { chatMessages, chatSwipes } from '#db/schema/chat.ts'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'

/**
 * Appends messages to a session as if the conversation had happened (complete replies with one
 * alternative each), with their token counts; returns their ids, oldest first.
 */
export async function addMessages(
  db: Db,
  sessionId: string,
  list: { author: MessageAuthor; content: string }[],
): Promise<number[]> {
  await tokenizerReady()
  const ids: number[] = []
  for (const m of list) {
    const tokens = countTokens(m.content)
    const reply = m.author === 'assistant'
    const [row] = await db
      .insert(chatMessages)
      .values({ sessionId, author: m.author, content: m.content, tokens, swipeCount: reply ? 1 : 0 })
      .returning({ id: chatMessages.id })
    if (!row) throw new Error('message was not stored')
    if (reply) {
      const [swipe] = await db
        .insert(chatSwipes)
        .values({ messageId: row.id, content: m.content, tokens, status: 'complete' })
        .returning({ id: chatSwipes.id })
      await db
        .update(chatMessages)
        .set({ swipeId: swipe?.id ?? null })
        .where(eq(chatMessages.id, row.id))
    }
    ids.push(row.id)
  }
  return ids
}

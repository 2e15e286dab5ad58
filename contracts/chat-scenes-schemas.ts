import { z } from 'zod'
import { SCENE_MODES } from './chat-scenes.ts'
import { LOCALES } from './locales.ts'

// The schemas of group scenes (ADR 052); the constants and types the browser uses are in
// chat-scenes.ts, which imports no zod.

const sessionId = z.string().min(1).max(100)
const roleRef = z.string().min(1).max(100)

export const sceneMemberSchema = z.object({
  /** The character's public id. */
  id: z.string(),
  name: z.string(),
  avatar: z.string().nullable(),
})

export const sceneSchema = z.object({
  mode: z.enum(SCENE_MODES),
  /** In speaking order; the first is the chat's own character. One member: an ordinary chat. */
  members: z.array(sceneMemberSchema),
  maxMembers: z.number().int(),
})

export const sceneAddBody = z.object({
  sessionId,
  roleId: roleRef,
  /** The interface's language: the greeting posted in it when the character has one (ADR 039). */
  locale: z.enum(LOCALES).optional(),
})
export const sceneRemoveBody = z.object({ sessionId, roleId: roleRef })
export const sceneModeBody = z.object({ sessionId, mode: z.enum(SCENE_MODES) })
export const speakBody = z.object({
  sessionId,
  /** The member who speaks now (its public id). */
  speaker: roleRef,
  chatModelId: z.string().min(1).max(100).optional(),
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,64}$/)
    .optional(),
  locale: z.enum(LOCALES).optional(),
})

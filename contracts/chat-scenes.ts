import { z } from 'zod'
import { LOCALES } from './locales.ts'

// Group scenes (ADR 052): a chat with several characters, who speaks next, and the "speak" turn.
// The browser imports only the types and constants (`import type` for the schemas).

/** Who answers after a user message: the user's pick, round robin, or the one named (else the quietest). */
export const SCENE_MODES = ['manual', 'turns', 'natural'] as const
export type SceneMode = (typeof SCENE_MODES)[number]

/** The most characters a scene holds, the chat's own one included. */
export const SCENE_MAX_MEMBERS = 5

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

export type SceneMember = z.infer<typeof sceneMemberSchema>
export type Scene = z.infer<typeof sceneSchema>

import type { z } from 'zod'
import type { sceneMemberSchema, sceneSchema } from './chat-scenes-schemas.ts'

// Group scenes (ADR 052): a chat with several characters, who speaks next, and the "speak" turn.
// No zod here: the chat page imports these constants (the schemas are in chat-scenes-schemas.ts).

/** Who answers after a user message: the user's pick, round robin, or the one named (else the quietest). */
export const SCENE_MODES = ['manual', 'turns', 'natural'] as const
export type SceneMode = (typeof SCENE_MODES)[number]

/** The most characters a scene holds, the chat's own one included. */
export const SCENE_MAX_MEMBERS = 5

export type SceneMember = z.infer<typeof sceneMemberSchema>
export type Scene = z.infer<typeof sceneSchema>

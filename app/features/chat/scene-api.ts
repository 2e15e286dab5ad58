import { api } from '#app/lib/http.ts'
import type { Scene, SceneMode } from '#contracts/chat-scenes.ts'

// Group scenes (ADR 052): the chat's members and who speaks next. "Let … speak" streams through api.ts.

export const getScene = (sessionId: string) => api<Scene>('/chat/scene', { method: 'POST', body: { sessionId } })
export const addSceneMember = (sessionId: string, roleId: string) =>
  api<Scene>('/chat/scene/add', { method: 'POST', body: { sessionId, roleId } })
export const removeSceneMember = (sessionId: string, roleId: string) =>
  api<Scene>('/chat/scene/remove', { method: 'POST', body: { sessionId, roleId } })
export const setSceneMode = (sessionId: string, mode: SceneMode) =>
  api<Scene>('/chat/scene/mode', { method: 'POST', body: { sessionId, mode } })

import { useCallback, useEffect, useState } from 'react'
import { addSceneMember, getScene, removeSceneMember, setSceneMode } from '#app/features/chat/scene-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Scene, SceneMode } from '#contracts/chat-scenes.ts'

/** A chat's scene (ADR 052): its members and mode, and the calls that change them (refusals are notified). */
export function useScene(sessionId: string) {
  const { t: tCommon } = useTranslation()
  const [scene, setScene] = useState<Scene | null>(null)
  useEffect(() => {
    let live = true
    getScene(sessionId).then(
      (found) => live && setScene(found),
      () => {},
    )
    return () => {
      live = false
    }
  }, [sessionId])
  const change = useCallback(
    async (call: () => Promise<Scene>) => {
      try {
        setScene(await call())
        return true
      } catch (error) {
        notify(apiErrorMessage(tCommon, error), { type: 'error' })
        return false
      }
    },
    [tCommon],
  )
  return {
    scene,
    add: (roleId: string) => change(() => addSceneMember(sessionId, roleId)),
    remove: (roleId: string) => change(() => removeSceneMember(sessionId, roleId)),
    setMode: (mode: SceneMode) => change(() => setSceneMode(sessionId, mode)),
  }
}

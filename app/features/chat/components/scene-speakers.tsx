import { MessageCircle } from 'lucide-react'
import { useId } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { SCENE_MODES, type Scene, type SceneMode } from '#contracts/chat-scenes.ts'

type Props = {
  scene: Scene
  busy: boolean
  onMode: (mode: SceneMode) => void
  onSpeak: (memberId: string) => void
}

/** Above the composer in a scene (ADR 052): who speaks next, and "Let … speak" for each member. */
export function SceneSpeakers({ scene, busy, onMode, onSpeak }: Props) {
  const { t } = useTranslation('chat')
  const modeId = useId()
  if (scene.members.length < 2) return null
  return (
    <div className="flex flex-wrap items-center gap-2 px-2 pb-2" data-testid="scene-speakers">
      <label htmlFor={modeId} className="text-xs text-zinc-400">
        {t('scene.mode')}
      </label>
      <select
        id={modeId}
        className="rounded-lg border border-zinc-700 bg-zinc-900 px-2 py-1 text-sm text-zinc-100"
        value={scene.mode}
        disabled={busy}
        onChange={(event) => onMode(event.target.value as SceneMode)}
      >
        {SCENE_MODES.map((mode) => (
          <option key={mode} value={mode}>
            {t(`scene.modes.${mode}`)}
          </option>
        ))}
      </select>
      <ul className="flex flex-wrap gap-1.5">
        {scene.members.map((member) => (
          <li key={member.id}>
            <button type="button" className="button-ghost text-sm" disabled={busy} onClick={() => onSpeak(member.id)}>
              <MessageCircle aria-hidden="true" className="size-4" />
              <span dir="auto">{t('scene.speak', { name: member.name })}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  )
}

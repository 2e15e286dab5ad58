import { useMemo } from 'react'
import { useNavigate } from 'react-router'
import { PageMeta } from '#app/components/page-meta.tsx'
import { CharacterForm } from '#app/features/characters/components/character-form.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { emptyForm } from '#app/features/characters/form-state.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/characters-edit-new.ts'

export const handle = { i18n: ['characters-edit', 'catalogue'] }

export async function loader({ params, context }: Route.LoaderArgs) {
  const { catalogue } = context.get(appLoadContext)
  return { tags: await catalogue.listTags(routeLocale(params)) }
}

/**
 * `/characters/edit/new` (spec: "Create a character"): an empty form, or one filled by an imported
 * card. Its draft is kept in this browser until the character is created.
 */
export default function NewCharacter({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('characters-edit')
  const locale = routeLocale(params)
  const navigate = useNavigate()
  const initial = useMemo(() => emptyForm(locale), [locale])
  return (
    <div>
      <PageMeta title={t('meta.newTitle')} description={t('meta.newDescription')} />
      <h1 className="mb-6 text-2xl font-bold sm:text-3xl">{t('meta.newTitle')}</h1>
      <SignedInGate>
        <CharacterForm
          roleId={null}
          initial={initial}
          knownTags={loaderData.tags}
          locale={locale}
          onSaved={(role) => navigate(localizePath(locale, `/characters/${role.roleId}`))}
          onCancel={() => navigate(localizePath(locale, '/characters/mine'))}
        />
      </SignedInGate>
    </div>
  )
}

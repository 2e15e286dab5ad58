import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { MyLorebooks } from '#app/features/characters/components/my-lorebooks.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/characters-lorebooks.ts'

export const handle = { i18n: ['characters-edit'] }

/** `/characters/lorebooks`: the signed-in user's lorebooks (ADR 043), attached to characters in their editor. */
export default function MyLorebooksPage({ params }: Route.ComponentProps) {
  const { t } = useTranslation('characters-edit')
  return (
    <div>
      <PageMeta title={t('meta.lorebooksTitle')} description={t('meta.lorebooksDescription')} />
      <meta name="robots" content="noindex" />
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold sm:text-3xl">{t('meta.lorebooksTitle')}</h1>
        <LocalizedLink to="/characters/mine" className="button-secondary">
          {t('edit.toMine')}
        </LocalizedLink>
      </div>
      <SignedInGate>
        <MyLorebooks locale={routeLocale(params)} />
      </SignedInGate>
    </div>
  )
}

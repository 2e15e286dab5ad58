import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { MyPersonas } from '#app/features/personas/components/my-personas.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export const handle = { i18n: ['personas', 'characters-edit'] }

/** `/personas`: who the signed-in user is in their stories (ADR 049); the default is what new chats take. */
export default function PersonasPage() {
  const { t } = useTranslation('personas')
  return (
    <div className="mx-auto max-w-3xl">
      <PageMeta title={t('meta.title')} description={t('meta.description')} />
      <meta name="robots" content="noindex" />
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold sm:text-3xl">{t('meta.title')}</h1>
        <LocalizedLink to="/account" className="button-secondary">
          {t('toAccount')}
        </LocalizedLink>
      </div>
      <SignedInGate>
        <MyPersonas />
      </SignedInGate>
    </div>
  )
}

import { MessageCircle } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'

export const handle = { i18n: ['home'] }

export default function Home() {
  const { t } = useTranslation('home')
  return (
    <>
      <PageMeta title={t('meta.title')} description={t('meta.description')} />
      <section className="hero" aria-labelledby="hero-title">
        <h1 id="hero-title" className="text-3xl font-bold tracking-tight sm:text-5xl">
          {t('hero.title')}
        </h1>
        <p className="mt-4 max-w-2xl text-lg text-zinc-300">{t('hero.subtitle')}</p>
        <LocalizedLink to="/characters" className="button-primary mt-8" data-testid="start-chat">
          <MessageCircle aria-hidden="true" className="size-5" />
          {t('hero.startChat')}
        </LocalizedLink>
      </section>
    </>
  )
}

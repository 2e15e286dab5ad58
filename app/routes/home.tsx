import { Brain, ChevronDown, Gem, Languages, Lock, MessageCircle, Sparkles } from 'lucide-react'
import { SiteJsonLd } from '#app/components/json-ld.tsx'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { RoleCard, RoleGrid } from '#app/features/catalogue/components/role-card.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/home.ts'

export const handle = { i18n: ['home', 'catalogue'] }

const POPULAR_COUNT = 12

export async function loader({ params, context }: Route.LoaderArgs) {
  const { catalogue, viewer } = context.get(appLoadContext)
  const locale = routeLocale(params)
  const [popular, featured] = await Promise.all([
    catalogue.listRoles(
      { page: 1, pageSize: POPULAR_COUNT, sort: 'popularity', tags: [], q: undefined },
      viewer,
      locale,
    ),
    catalogue.listFeatured(viewer, locale),
  ])
  return { popular: popular.items, featured }
}

const FEATURES = [
  { key: 'characters', icon: Sparkles },
  { key: 'memory', icon: Brain },
  { key: 'languages', icon: Languages },
  { key: 'costs', icon: Gem },
  { key: 'privacy', icon: Lock },
] as const

const QUESTIONS = ['free', 'diamonds', 'memory', 'adult'] as const

export default function Home({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('home')
  const locale = routeLocale(params)
  return (
    <>
      <PageMeta title={t('meta.title')} description={t('meta.description')} />
      <SiteJsonLd />
      <section className="hero" aria-labelledby="hero-title">
        <h1 id="hero-title" className="text-3xl font-bold tracking-tight sm:text-5xl">
          {t('hero.title')}
        </h1>
        <p className="mt-4 max-w-2xl text-lg text-zinc-300">{t('hero.subtitle')}</p>
        <LocalizedLink to="/characters" className="button-primary mt-8" data-testid="hero-start-chat">
          <MessageCircle aria-hidden="true" className="size-5" />
          {t('hero.startChat')}
        </LocalizedLink>
      </section>

      {loaderData.featured.length > 0 ? (
        <section aria-labelledby="featured-title" className="mt-12" data-testid="featured">
          <h2 id="featured-title" className="mb-4 text-2xl font-semibold">
            {t('featured.title')}
          </h2>
          <RoleGrid>
            {loaderData.featured.map((role, index) => (
              <RoleCard
                key={role.roleId}
                role={role}
                href={localizePath(locale, `/characters/${role.roleId}`)}
                eager={index < 2}
              />
            ))}
          </RoleGrid>
        </section>
      ) : null}

      {loaderData.popular.length > 0 ? (
        <section aria-labelledby="popular-title" className="mt-12">
          <div className="mb-4 flex items-baseline justify-between gap-4">
            <h2 id="popular-title" className="text-2xl font-semibold">
              {t('popular.title')}
            </h2>
            <LocalizedLink to="/characters" className="text-sm text-violet-300 hover:text-violet-200">
              {t('popular.seeAll')}
            </LocalizedLink>
          </div>
          <RoleGrid>
            {loaderData.popular.map((role, index) => (
              <RoleCard
                key={role.roleId}
                role={role}
                href={localizePath(locale, `/characters/${role.roleId}`)}
                eager={index < 2 && loaderData.featured.length === 0}
              />
            ))}
          </RoleGrid>
        </section>
      ) : null}

      <section aria-labelledby="features-title" className="mt-16">
        <h2 id="features-title" className="mb-6 text-2xl font-semibold">
          {t('features.title')}
        </h2>
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
          {FEATURES.map(({ key, icon: Icon }) => (
            <li key={key} className="rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
              <Icon aria-hidden="true" className="size-7 text-violet-300" />
              <h3 className="mt-3 font-semibold">{t(`features.${key}.title`)}</h3>
              <p className="mt-1 text-sm text-zinc-400">{t(`features.${key}.text`)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby="faq-title" className="mt-16 max-w-3xl">
        <h2 id="faq-title" className="mb-4 text-2xl font-semibold">
          {t('faq.title')}
        </h2>
        <div className="divide-y divide-zinc-800 rounded-2xl border border-zinc-800 bg-zinc-900">
          {QUESTIONS.map((key) => (
            <details key={key} className="group px-5 py-4">
              <summary className="flex cursor-pointer list-none items-center justify-between gap-4 font-medium [&::-webkit-details-marker]:hidden">
                <h3>{t(`faq.${key}.question`)}</h3>
                <ChevronDown aria-hidden="true" className="size-5 shrink-0 transition group-open:rotate-180" />
              </summary>
              <p className="mt-3 text-zinc-300">{t(`faq.${key}.answer`)}</p>
            </details>
          ))}
        </div>
      </section>
    </>
  )
}

import { Link } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { BlogSummary } from '#contracts/blog.ts'
import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import { ArticleMeta } from './article-meta.tsx'

/** An article in the list: cover, title, description, date and reading time. */
export function ArticleCard({
  article,
  href,
  locale,
  eager = false,
}: {
  article: BlogSummary
  href: string
  locale: Locale
  eager?: boolean
}) {
  const { t } = useTranslation('blog')
  // An untranslated article shows its English title and description: say so, and mark the language.
  const lang = article.fallback ? LOCALE_TAGS[article.contentLocale as Locale] : undefined
  return (
    <li className="group relative flex flex-col overflow-hidden rounded-2xl border border-zinc-800 bg-zinc-900 transition hover:border-violet-500/60">
      <div className="aspect-[40/21] overflow-hidden bg-zinc-800">
        <img
          src={article.cover.url}
          alt={article.cover.alt}
          lang={lang}
          width={article.cover.width}
          height={article.cover.height}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
          className="size-full object-cover transition group-hover:scale-105"
        />
      </div>
      <div className="flex flex-1 flex-col gap-3 p-5">
        <h2 className="text-xl font-semibold leading-snug" lang={lang} dir={lang ? 'ltr' : undefined}>
          <Link to={href} className="after:absolute after:inset-0 focus-visible:outline-none" prefetch="intent">
            {article.title}
          </Link>
        </h2>
        <p className="text-zinc-300" lang={lang} dir={lang ? 'ltr' : undefined}>
          {article.description}
        </p>
        <div className="mt-auto flex flex-wrap items-center gap-2">
          <ArticleMeta article={article} locale={locale} />
          {article.fallback ? (
            <span className="rounded-full bg-zinc-800 px-2 py-0.5 text-xs text-zinc-300">{t('list.inEnglish')}</span>
          ) : null}
        </div>
      </div>
    </li>
  )
}

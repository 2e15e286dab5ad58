import { ArrowLeft, ArrowRight, Languages } from 'lucide-react'
import { data, Link, useRouteLoaderData } from 'react-router'
import { JsonLd } from '#app/components/json-ld.tsx'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { ArticleMeta } from '#app/features/blog/components/article-meta.tsx'
import { TableOfContents } from '#app/features/blog/components/table-of-contents.tsx'
import { blogTagNames } from '#app/features/blog/tag-names.ts'
import { RoleCard } from '#app/features/catalogue/components/role-card.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { isLocale, LOCALE_TAGS, localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/blog-article.ts'

// Related characters are catalogue cards, with the catalogue's words.
export const handle = { i18n: ['blog', 'catalogue'] }

export async function loader({ params, context }: Route.LoaderArgs) {
  const { blog } = context.get(appLoadContext)
  const article = await blog.getArticle(params.slug, routeLocale(params))
  if (!article) throw data(null, { status: 404 })
  return { article }
}

/**
 * `/blog/:slug`: the article, rendered on the server in full (its HTML was sanitized when the
 * markdown was loaded), with contents, previous and next, and characters to try.
 */
export default function BlogArticle({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('blog')
  const { t: tCommon } = useTranslation()
  const { article } = loaderData
  const locale = routeLocale(params)
  const origin = (useRouteLoaderData('root') as { origin: string } | undefined)?.origin ?? ''
  const path = localizePath(locale, `/blog/${article.slug}`)
  const contentLocale = isLocale(article.contentLocale) ? article.contentLocale : 'en'
  // Shown in English: the text says which language it is in, and reads left to right.
  const textLang = article.fallback ? LOCALE_TAGS[contentLocale] : undefined
  const textDir = article.fallback ? 'ltr' : undefined
  const imageUrl = origin + article.cover.socialUrl
  const tags = blogTagNames(t, article.tags)

  return (
    <article className="mx-auto max-w-6xl">
      <PageMeta
        title={article.title}
        description={article.description}
        type="article"
        image={{ url: article.cover.socialUrl, alt: article.cover.alt, width: 1200, height: 630 }}
        locales={article.translations.filter(isLocale)}
      />
      {/* The English text under another language's address is not that language's page to index. */}
      {article.fallback ? <meta name="robots" content="noindex, follow" /> : null}
      <meta property="article:published_time" content={article.date} />
      <meta property="article:modified_time" content={article.updated ?? article.date} />
      <meta property="article:author" content={article.author} />
      {tags.map((tag) => (
        <meta key={tag.slug} property="article:tag" content={tag.name} />
      ))}
      <JsonLd
        data={{
          '@type': 'BlogPosting',
          headline: article.title,
          description: article.description,
          image: [imageUrl],
          datePublished: article.date,
          dateModified: article.updated ?? article.date,
          inLanguage: LOCALE_TAGS[contentLocale],
          keywords: tags.map((tag) => tag.name).join(', '),
          author: { '@type': 'Person', name: article.author },
          publisher: {
            '@type': 'Organization',
            name: tCommon('brand'),
            logo: { '@type': 'ImageObject', url: `${origin}/icon-512.png` },
          },
          mainEntityOfPage: { '@type': 'WebPage', '@id': origin + path },
          url: origin + path,
        }}
      />

      <LocalizedLink to="/blog" className="button-ghost -ms-3">
        <ArrowLeft aria-hidden="true" className="size-4 rtl:rotate-180" />
        {t('article.allArticles')}
      </LocalizedLink>

      <header className="mt-4 max-w-3xl">
        <h1 className="text-3xl font-bold leading-tight sm:text-4xl" lang={textLang} dir={textDir}>
          {article.title}
        </h1>
        <p className="mt-3 text-lg text-zinc-300" lang={textLang} dir={textDir}>
          {article.description}
        </p>
        <div className="mt-4">
          <ArticleMeta article={article} locale={locale} withAuthor />
        </div>
        {article.tags.length > 0 ? (
          <ul aria-label={t('article.tags')} className="mt-3 flex flex-wrap gap-1.5">
            {tags.map((tag) => (
              <li key={tag.slug} className="rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300">
                {tag.name}
              </li>
            ))}
          </ul>
        ) : null}
      </header>

      {article.fallback ? (
        <p
          role="note"
          className="mt-6 flex max-w-3xl items-start gap-2 rounded-xl border border-amber-700/60 bg-amber-950/40 p-4 text-amber-100"
          data-testid="blog-fallback"
        >
          <Languages aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
          {t('article.fallback')}
        </p>
      ) : null}

      <img
        src={article.cover.url}
        alt={article.cover.alt}
        lang={textLang}
        width={article.cover.width}
        height={article.cover.height}
        fetchPriority="high"
        className="mt-8 aspect-[40/21] w-full rounded-3xl bg-zinc-900 object-cover"
      />

      <div className="mt-10 grid gap-10 lg:grid-cols-[minmax(0,1fr)_16rem]">
        <aside className="lg:order-last">
          <div className="lg:sticky lg:top-20">
            <TableOfContents entries={article.toc} lang={textLang} />
          </div>
        </aside>
        <div
          className="article-body min-w-0"
          lang={textLang}
          dir={textDir}
          data-testid="blog-body"
          // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized when loaded (raw HTML escaped, safe links only).
          dangerouslySetInnerHTML={{ __html: article.html }}
        />
      </div>

      {article.previous || article.next ? (
        <nav
          aria-label={t('article.neighbours')}
          className="mt-14 grid gap-4 border-t border-zinc-800 pt-8 sm:grid-cols-2"
        >
          {article.previous ? (
            <Link
              to={localizePath(locale, `/blog/${article.previous.slug}`)}
              className="group rounded-2xl border border-zinc-800 p-4 hover:border-violet-500/60"
            >
              <span className="flex items-center gap-1.5 text-sm text-zinc-400">
                <ArrowLeft aria-hidden="true" className="size-4 rtl:rotate-180" />
                {t('article.previous')}
              </span>
              <span className="mt-1 block font-semibold group-hover:underline">{article.previous.title}</span>
            </Link>
          ) : (
            <span />
          )}
          {article.next ? (
            <Link
              to={localizePath(locale, `/blog/${article.next.slug}`)}
              className="group rounded-2xl border border-zinc-800 p-4 text-end hover:border-violet-500/60"
            >
              <span className="flex items-center justify-end gap-1.5 text-sm text-zinc-400">
                {t('article.next')}
                <ArrowRight aria-hidden="true" className="size-4 rtl:rotate-180" />
              </span>
              <span className="mt-1 block font-semibold group-hover:underline">{article.next.title}</span>
            </Link>
          ) : null}
        </nav>
      ) : null}

      {article.related.length > 0 ? (
        <section aria-labelledby="blog-related-title" className="mt-14">
          <h2 id="blog-related-title" className="text-2xl font-semibold">
            {t('article.related')}
          </h2>
          <p className="mb-4 mt-1 text-zinc-400">{t('article.relatedText')}</p>
          <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 2xl:grid-cols-6">
            {article.related.map((role) => (
              <RoleCard key={role.roleId} role={role} href={localizePath(locale, `/characters/${role.roleId}`)} />
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  )
}

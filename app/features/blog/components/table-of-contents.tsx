import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { BlogTocEntry } from '#contracts/blog.ts'

/** The article's h2 and h3 headings as links to their ids (rendered by the server's markdown). */
export function TableOfContents({ entries, lang }: { entries: BlogTocEntry[]; lang?: string }) {
  const { t } = useTranslation('blog')
  if (entries.length === 0) return null
  return (
    <nav aria-labelledby="blog-toc-title" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
      <h2 id="blog-toc-title" className="mb-3 text-sm font-semibold uppercase tracking-wide text-violet-300">
        {t('article.toc')}
      </h2>
      <ol className="space-y-2 text-sm" lang={lang} dir={lang ? 'ltr' : undefined}>
        {entries.map((entry) => (
          <li key={entry.id} className={entry.level > 2 ? 'ps-4' : undefined}>
            <a href={`#${entry.id}`} className="text-zinc-300 hover:text-white hover:underline">
              {entry.text}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  )
}

import { CalendarDays, Clock } from 'lucide-react'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { BlogSummary } from '#contracts/blog.ts'
import type { Locale } from '#contracts/locales.ts'

/** Date (and last update), reading time and, when asked, the author of an article. */
export function ArticleMeta({
  article,
  locale,
  withAuthor = false,
}: {
  article: BlogSummary
  locale: Locale
  withAuthor?: boolean
}) {
  const { t } = useTranslation('blog')
  return (
    <ul className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm text-zinc-400">
      <li className="flex items-center gap-1.5">
        <CalendarDays aria-hidden="true" className="size-4" />
        <time dateTime={article.date}>{t('meta.publishedOn', { date: formatDate(locale, article.date) })}</time>
      </li>
      {article.updated ? (
        <li>
          <time dateTime={article.updated}>{t('meta.updatedOn', { date: formatDate(locale, article.updated) })}</time>
        </li>
      ) : null}
      <li className="flex items-center gap-1.5">
        <Clock aria-hidden="true" className="size-4" />
        {t('meta.readingTime', { count: article.readingMinutes })}
      </li>
      {withAuthor ? <li>{t('meta.by', { author: article.author })}</li> : null}
    </ul>
  )
}

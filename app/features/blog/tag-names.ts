import type { TFunction } from 'i18next'
import type enBlog from '#locales/en/blog.json'

type NamedTag = keyof (typeof enBlog)['tagNames']

/**
 * An article's topics by name in the page's language (`tagNames` in locales/<locale>/blog.json),
 * not by slug; a topic without a name yet shows its slug.
 */
export function blogTagNames(t: TFunction<'blog'>, slugs: string[]): { slug: string; name: string }[] {
  return slugs.map((slug) => ({ slug, name: t(`tagNames.${slug as NamedTag}`, { defaultValue: slug }) }))
}

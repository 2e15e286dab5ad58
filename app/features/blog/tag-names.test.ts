import { readFileSync } from 'node:fs'
import path from 'node:path'
import i18next, { type TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import { blogTagNames } from './tag-names.ts'

const root = path.resolve(import.meta.dirname, '../../..')

function tFor(locale: Locale): TFunction<'blog'> {
  const blog = JSON.parse(readFileSync(path.join(root, 'locales', locale, 'blog.json'), 'utf8'))
  const instance = i18next.createInstance()
  void instance.init({ lng: locale, lowerCaseLng: true, resources: { [locale]: { blog } }, initAsync: false })
  return instance.getFixedT(locale, 'blog') as TFunction<'blog'>
}

// Every topic the articles carry (front matter `tags:`), in every locale's file.
const articleTags = [
  ...new Set(
    readFileSync(path.join(root, 'content/blog/how-to-write-a-character-people-love/en.md'), 'utf8')
      .concat(readFileSync(path.join(root, 'content/blog/how-memory-and-diamonds-work/en.md'), 'utf8'))
      .concat(readFileSync(path.join(root, 'content/blog/safety-and-privacy-in-role-play-chat/en.md'), 'utf8'))
      .match(/^tags: \[(.*)\]$/gm)
      ?.flatMap((line) =>
        line
          .slice(7, -1)
          .split(',')
          .map((tag) => tag.trim()),
      ) ?? [],
  ),
]

describe('blog topics', () => {
  it('are shown by name, not slug', () => {
    expect(articleTags.length).toBeGreaterThan(5)
    expect(blogTagNames(tFor('en'), ['memory', 'guide'])).toEqual([
      { slug: 'memory', name: 'Memory' },
      { slug: 'guide', name: 'Guide' },
    ])
    expect(blogTagNames(tFor('ja'), ['characters'])).toEqual([{ slug: 'characters', name: 'キャラクター' }])
    expect(blogTagNames(tFor('ar'), ['privacy'])[0]?.name).toBe('الخصوصية')
  })

  it.each(LOCALES)('has a name for every topic of the articles in %s', (locale) => {
    const t = tFor(locale)
    for (const { slug, name } of blogTagNames(t, articleTags)) expect(name, slug).not.toBe(slug)
  })

  it('shows a topic with no name yet by its slug', () => {
    expect(blogTagNames(tFor('de'), ['brand-new'])).toEqual([{ slug: 'brand-new', name: 'brand-new' }])
  })
})

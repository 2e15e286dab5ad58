import { describe, expect, it } from 'vitest'
import { findTag, matchCardTags, slugForTag } from './tag-slug.ts'

const known: { slug: string; names: Record<string, string> }[] = [
  { slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } },
  { slug: 't-0123456789ab', names: { ja: '日常 系' } },
]
const english = (tag: { names: Record<string, string> }) => tag.names.en ?? Object.values(tag.names)[0] ?? ''

describe('tags of a card matched to the site’s', () => {
  it('finds a tag whatever the case, width or spacing of its name', () => {
    for (const typed of ['Fantasy', 'FANTASY', ' fantasy ', 'ｆａｎｔａｓｙ', 'fantastique']) {
      expect(findTag(known, typed)?.slug, typed).toBe('fantasy')
    }
    expect(findTag(known, '日常  系')?.slug).toBe('t-0123456789ab')
    expect(findTag(known, 'Noir')).toBeUndefined()
  })

  it('gives a non-Latin name one slug whatever its spacing', () => {
    expect(slugForTag('日常  系 ')).toBe(slugForTag('日常 系'))
    expect(slugForTag('Sci-Fi')).toBe(slugForTag('sci  fi'))
  })

  it('merges names that land on the same tag, keeping the first, and drops blank ones', () => {
    expect(
      matchCardTags(known, ['Fantasy', 'FANTASY', 'Sci-Fi', 'sci fi', ' ', 'Noir', 'noir', 'fantastique'], english),
    ).toEqual([
      { slug: 'fantasy', name: 'Fantasy' },
      { slug: null, name: 'Sci-Fi' },
      { slug: null, name: 'Noir' },
    ])
    // A new name is given as the save will store it (spacing folded).
    expect(matchCardTags(known, ['  Slice \t of  Life '], english)).toEqual([{ slug: null, name: 'Slice of Life' }])
  })
})

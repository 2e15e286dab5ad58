import { describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import { dataUrlToBlob, emptyForm, formDataOf, problemsOf, tagFor } from './form-state.ts'

describe('character form state', () => {
  const png = `data:image/png;base64,${Buffer.from('not really a png').toString('base64')}`

  it('sends the fields as the server reads them: trimmed, blank greetings dropped, tags by slug or name', async () => {
    const body = formDataOf(
      {
        ...emptyForm(),
        name: '  Orla  ',
        alternateGreetings: ['Hello', '   ', 'Hi'],
        tags: [
          { slug: 'fantasy', name: 'Fantasy' },
          { slug: null, name: 'Lighthouse' },
        ],
        visibility: 'private',
        isAdult: true,
        avatar: { kind: 'new', dataUrl: png, name: 'a.png', size: 16 },
        banner: { kind: 'none' },
      },
      true,
    )
    expect(body.get('name')).toBe('Orla')
    expect(body.getAll('alternateGreetings')).toEqual(['Hello', 'Hi'])
    expect(body.getAll('tags')).toEqual(['fantasy', 'Lighthouse'])
    expect(body.get('visibility')).toBe('private')
    expect(body.get('isAdult')).toBe('true')
    expect(body.get('lorebook')).toBe('null')
    expect(body.get('cardExtras')).toBeNull()
    const avatar = body.get('avatar') as File
    expect(avatar.name).toBe('a.png')
    expect(await avatar.text()).toBe('not really a png')
    // On edit, a picture taken away is asked to be removed; a new form just leaves it out.
    expect(body.get('removeBanner')).toBe('true')
    expect(formDataOf(emptyForm(), false).get('removeBanner')).toBeNull()
  })

  it('finds the problems the server would, by field', () => {
    const state = {
      ...emptyForm(),
      introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1),
      alternateGreetings: ['', 'y'.repeat(CHARACTER_LIMITS.greeting + 1)],
      banner: { kind: 'new' as const, dataUrl: '', name: 'huge.png', size: CHARACTER_LIMITS.imageBytes + 1 },
    }
    expect(problemsOf(state).map((p) => `${p.path} ${p.code}`)).toEqual([
      'name required',
      'introduction too_long',
      'alternateGreetings.1 too_long',
      'banner file_too_large',
    ])
  })

  it('matches typed tags to known ones by name or slug, ignoring case', () => {
    const known = [{ slug: 'sci-fi', name: 'Sci-Fi' }]
    expect(tagFor('sci-fi', known)).toEqual({ slug: 'sci-fi', name: 'Sci-Fi' })
    expect(tagFor(' SCI-FI ', known)).toEqual({ slug: 'sci-fi', name: 'Sci-Fi' })
    expect(tagFor(' Noir ', known)).toEqual({ slug: null, name: 'Noir' })
  })

  it('turns a data URL back into bytes', async () => {
    const blob = dataUrlToBlob(png)
    expect(blob.type).toBe('image/png')
    expect(await blob.text()).toBe('not really a png')
  })
})

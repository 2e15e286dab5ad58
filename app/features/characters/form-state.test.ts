import { describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS } from '#contracts/characters.ts'
import {
  dataUrlToBlob,
  emptyForm,
  formDataOf,
  formOfImport,
  formTagKey,
  problemsOf,
  sourceTextsOf,
  tagFor,
  withSourceLanguage,
} from './form-state.ts'

describe('character form state', () => {
  it("takes an imported card's source language (ADR 041) and keeps the form's when the card says none", () => {
    const draft = {
      ...emptyForm(),
      details: '',
      tags: [],
      lorebook: null,
      cardExtras: { sourceLanguage: 'ja' as const },
    }
    const result = {
      draft,
      avatar: null,
      version: 'v3' as const,
      format: 'json' as const,
      report: { repaired: [], ignored: [] },
    }
    expect(formOfImport(result as unknown as Parameters<typeof formOfImport>[0], emptyForm('de')).sourceLanguage).toBe(
      'ja',
    )
    expect(
      formOfImport(
        { ...result, draft: { ...draft, cardExtras: null } } as unknown as Parameters<typeof formOfImport>[0],
        emptyForm('de'),
      ).sourceLanguage,
    ).toBe('de')
  })

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

  it('sends the language the texts are written in: the interface’s for a new character, else the one chosen', () => {
    expect(formDataOf(emptyForm('ja'), false).get('sourceLanguage')).toBe('ja')
    expect(formDataOf({ ...emptyForm('ja'), sourceLanguage: 'fr' }, true).get('sourceLanguage')).toBe('fr')
    // A draft kept before the form had the field takes the form's own.
    const { sourceLanguage: _, ...old } = emptyForm()
    expect(withSourceLanguage(old as ReturnType<typeof emptyForm>, emptyForm('ar')).sourceLanguage).toBe('ar')
    expect(withSourceLanguage(emptyForm('de'), emptyForm('ar')).sourceLanguage).toBe('de')
  })

  it('gives the texts translations are made from, as they would be saved', () => {
    const state = { ...emptyForm(), name: ' Orla ', introduction: 'Keeper. ', alternateGreetings: ['Hi', ' ', 'Yo'] }
    expect(sourceTextsOf(state)).toEqual({
      name: 'Orla',
      introduction: 'Keeper.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: ['Hi', 'Yo'],
    })
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

  it('matches typed tags to known ones by name or slug, ignoring case and spacing', () => {
    const known = [
      { slug: 'sci-fi', name: 'Sci-Fi' },
      { slug: 'slice-of-life', name: 'Slice of Life' },
    ]
    expect(tagFor('sci-fi', known)).toEqual({ slug: 'sci-fi', name: 'Sci-Fi' })
    expect(tagFor(' SCI-FI ', known)).toEqual({ slug: 'sci-fi', name: 'Sci-Fi' })
    expect(tagFor('slice  OF life', known)).toEqual({ slug: 'slice-of-life', name: 'Slice of Life' })
    expect(tagFor(' Noir ', known)).toEqual({ slug: null, name: 'Noir' })
  })

  it('fills the form from a card with each tag once, and marks what the save would refuse at once', () => {
    const draft = {
      ...emptyForm(),
      name: 'Orla',
      introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1),
      tags: [
        { slug: 'fantasy', name: 'Fantasy' },
        { slug: 'fantasy', name: 'Fantasy' },
        { slug: null, name: 'Noir' },
        { slug: null, name: 'NOIR ' },
        { slug: null, name: '  ' },
      ],
      lorebook: { extensions: {}, entries: Array.from({ length: CHARACTER_LIMITS.lorebookEntries + 1 }, () => ({})) },
      cardExtras: {},
    }
    const result = {
      draft,
      avatar: null,
      version: 'v2',
      format: 'json',
      report: { repaired: [], ignored: [], problems: [] },
    }
    const state = formOfImport(result as unknown as Parameters<typeof formOfImport>[0], emptyForm())
    expect(state.tags).toEqual([
      { slug: 'fantasy', name: 'Fantasy' },
      { slug: null, name: 'Noir' },
    ])
    expect(state.tags.map(formTagKey)).toEqual(['fantasy', 'new:noir'])
    expect(problemsOf(state).map((p) => `${p.path} ${p.code} ${p.limit}`)).toEqual([
      `introduction too_long ${CHARACTER_LIMITS.introduction}`,
      `lorebook too_many ${CHARACTER_LIMITS.lorebookEntries}`,
    ])
    // A draft kept by an older form with a tag twice shows it once.
    expect(withSourceLanguage({ ...emptyForm(), tags: draft.tags }, emptyForm()).tags).toHaveLength(2)
  })

  it('turns a data URL back into bytes', async () => {
    const blob = dataUrlToBlob(png)
    expect(blob.type).toBe('image/png')
    expect(await blob.text()).toBe('not really a png')
  })
})

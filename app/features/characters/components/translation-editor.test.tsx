import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { createI18n } from '#app/lib/i18n.ts'
import { I18nProvider } from '#app/lib/i18n-react.tsx'
import type { RoleTranslation } from '#contracts/role-texts.ts'
import edit from '#locales/en/characters-edit.json' with { type: 'json' }
import common from '#locales/en/common.json' with { type: 'json' }
import { TranslationEditor } from './translation-editor.tsx'

const i18n = createI18n('en', { common, 'characters-edit': edit })

const source = {
  name: 'Orla Finch',
  introduction: 'A lighthouse keeper.',
  scenario: '',
  firstMessage: 'Come in out of the rain.',
  alternateGreetings: ['Another letter washed up.', 'Tea?'],
}

const machine: RoleTranslation = {
  locale: 'ar',
  origin: 'machine',
  stale: true,
  texts: {
    name: null,
    introduction: 'حارسة منارة.',
    scenario: '',
    firstMessage: '',
    alternateGreetings: ['رسالة أخرى.'],
  },
  updatedAt: '2026-11-25T00:00:00Z',
}

const render = (translation: RoleTranslation | null) =>
  renderToString(
    <I18nProvider i18n={i18n}>
      <TranslationEditor
        roleId="r1"
        locale="ar"
        uiLocale="en"
        languageName={{ inInterface: 'Arabic', own: 'العربية' }}
        sourceLanguage="en"
        sourceLanguageName={{ inInterface: 'English', own: 'English' }}
        source={source}
        sourceEdited={false}
        translation={translation}
        onSaved={() => {}}
        onCancel={() => {}}
      />
    </I18nProvider>,
  )

/** The opening tag of the element with this id. */
const tagOf = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*id="${id}"[^>]*>`).exec(html)?.[0] ?? ''

describe('the translation editor', () => {
  it('marks every field with the translation’s language and every original with the source’s', () => {
    const html = render(machine)
    for (const id of [
      'translation-name',
      'translation-introduction',
      'translation-greeting-0',
      'translation-greeting-1',
    ]) {
      expect(tagOf(html, id)).toContain('lang="ar"')
      expect(tagOf(html, id)).toContain('dir="auto"')
    }
    expect(tagOf(html, 'translation-source-introduction')).toContain('lang="en"')
    expect(tagOf(html, 'translation-source-introduction')).toContain('dir="auto"')
    // The original is read with its field.
    expect(tagOf(html, 'translation-greeting-1')).toContain('aria-describedby="translation-source-greeting-1')
  })

  it('shows one field per source greeting, filled from the translation where it has one', () => {
    const html = render(machine)
    expect(html).toContain('Greeting 1')
    expect(html).toContain('Greeting 2')
    expect(html).not.toContain('translation-greeting-2')
    expect(html).toMatch(/id="translation-greeting-0"[^>]*>رسالة أخرى\.<\/textarea>/)
    expect(html).toContain(edit.languages.emptyOriginal)
  })

  it('says a machine translation becomes the creator’s when saved, and that the original changed', () => {
    const html = render(machine)
    expect(html).toContain(edit.languages.machineNote)
    expect(html).toContain(edit.languages.staleNote)
    const fresh = render(null)
    expect(fresh).not.toContain(edit.languages.machineNote)
    expect(fresh).not.toContain(edit.languages.staleNote)
    expect(fresh).toContain('Arabic translation')
  })
})

// Compiled by `npm run typecheck`, never run: proves translation keys are type-checked.
import type { TFunction } from 'i18next'

export function keysAreChecked(t: TFunction, tHome: TFunction<'home'>) {
  t('nav.home')
  tHome('hero.title')
  // @ts-expect-error a key that is not in locales/en/common.json must not compile
  t('nav.hoem')
  // @ts-expect-error a key of another namespace is not a key of this one
  tHome('nav.home')
}

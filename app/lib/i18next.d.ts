import 'i18next'
import type account from '../../locales/en/account.json'
import type auth from '../../locales/en/auth.json'
import type blog from '../../locales/en/blog.json'
import type catalogue from '../../locales/en/catalogue.json'
import type charactersEdit from '../../locales/en/characters-edit.json'
import type chat from '../../locales/en/chat.json'
import type common from '../../locales/en/common.json'
import type consoleStrings from '../../locales/en/console.json'
import type consoleHealth from '../../locales/en/console-health.json'
import type consoleModeration from '../../locales/en/console-moderation.json'
import type consoleMoney from '../../locales/en/console-money.json'
import type consolePeople from '../../locales/en/console-people.json'
import type consoleTags from '../../locales/en/console-tags.json'
import type home from '../../locales/en/home.json'
import type legal from '../../locales/en/legal.json'
import type personas from '../../locales/en/personas.json'
import type pricing from '../../locales/en/pricing.json'

// English is the source: a key that is not in it fails the typecheck.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common'
    resources: {
      common: typeof common
      home: typeof home
      catalogue: typeof catalogue
      'characters-edit': typeof charactersEdit
      auth: typeof auth
      pricing: typeof pricing
      chat: typeof chat
      blog: typeof blog
      legal: typeof legal
      account: typeof account
      personas: typeof personas
      console: typeof consoleStrings
      'console-money': typeof consoleMoney
      'console-tags': typeof consoleTags
      'console-health': typeof consoleHealth
      'console-people': typeof consolePeople
      'console-moderation': typeof consoleModeration
    }
  }
}

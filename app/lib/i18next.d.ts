import 'i18next'
import type auth from '../../locales/en/auth.json'
import type catalogue from '../../locales/en/catalogue.json'
import type common from '../../locales/en/common.json'
import type home from '../../locales/en/home.json'

// English is the source: a key that is not in it fails the typecheck.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common'
    resources: {
      common: typeof common
      home: typeof home
      catalogue: typeof catalogue
      auth: typeof auth
    }
  }
}

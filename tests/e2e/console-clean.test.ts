import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import routes from '#app/routes.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  apiLogin,
  chromiumPath,
  createCharacter,
  HYDRATED,
  launchBrowser,
  personPage,
  type RunningServer,
  startServer,
  stopWithModelDouble,
} from './browser.ts'
import { callApi, consoleTab, enrollByApi, seedStaff } from './console-staff.ts'

// Issue 24 item 4: no page of the product writes an error to the browser's console, in English
// and in Arabic, for a visitor, a signed-in person and an admin in the console. Fails on a console
// message of type error, an uncaught error, a CSP violation and any React hydration message, of
// the first load (the server's page hydrated) and of whatever the page fetches after it.

const admin = { username: 'quiet_keeper', email: 'quiet-keeper@example.test', password: 'not a sound in the hall' }

/** The route files of app/routes.ts, so a page added there without a visit here fails the test. */
function routeFiles(list: readonly { file: string; children?: unknown }[]): string[] {
  return list.flatMap((r) => [r.file, ...routeFiles((r.children ?? []) as typeof list)])
}

/** React's hydration complaints, whatever the console method: production codes and dev words. */
const HYDRATION = /hydrat|did not match|Minified React error #(418|419|421|422|423|425)\b/i

const NOT_FOUND = '/no-such-page'

type Ids = { roleId: string; ownRoleId: string; articleSlug: string; orderId: string; userId: string }

/** Every route file and the addresses that show it; `{x}` is filled from the ids made in `beforeAll`. */
const VISITS: Record<string, { anonymous?: string[]; signedIn?: string[] }> = {
  'routes/locale-layout.tsx': { anonymous: ['/'] },
  'routes/home.tsx': { anonymous: ['/'], signedIn: ['/'] },
  'routes/characters.tsx': { anonymous: ['/characters'] },
  'routes/characters-mine.tsx': { anonymous: ['/characters/mine'], signedIn: ['/characters/mine'] },
  'routes/characters-lorebooks.tsx': { signedIn: ['/characters/lorebooks'] },
  // The editor of a new character and of the admin's own one, each with a draft kept in the browser
  // (see keepDraft); without an id the form's page points to My characters.
  'routes/characters-edit-new.tsx': { signedIn: ['/characters/edit/new'] },
  'routes/characters-edit-form.tsx': { signedIn: ['/characters/edit/form', '/characters/edit/form?id={ownRoleId}'] },
  'routes/character.tsx': { anonymous: ['/characters/{roleId}'], signedIn: ['/characters/{ownRoleId}'] },
  'routes/chats.tsx': { signedIn: ['/chats'] },
  'routes/chat-new.tsx': { signedIn: ['/chat/new?roleId={roleId}'] },
  'routes/chat.tsx': { signedIn: ['{chat}'] },
  'routes/subscribe.tsx': { anonymous: ['/subscribe'], signedIn: ['/subscribe'] },
  'routes/subscribe-success.tsx': { signedIn: ['/subscribe/success?orderId={orderId}'] },
  'routes/subscribe-sandbox.tsx': { signedIn: ['/subscribe/sandbox?orderId={orderId}'] },
  'routes/account.tsx': { signedIn: ['/account'] },
  'routes/personas.tsx': { signedIn: ['/personas'] },
  'routes/login.tsx': { anonymous: ['/login'] },
  'routes/register.tsx': { anonymous: ['/register'] },
  'routes/verify.tsx': { anonymous: ['/verify'] },
  'routes/forgot-password.tsx': { anonymous: ['/forgot-password'] },
  'routes/reset-password.tsx': { anonymous: ['/reset-password'] },
  'routes/google-callback.tsx': { anonymous: ['/auth/callback/google'] },
  'routes/blog.tsx': { anonymous: ['/blog'] },
  'routes/blog-article.tsx': { anonymous: ['/blog/{articleSlug}'] },
  'routes/links.tsx': { anonymous: ['/links'] },
  'routes/privacy-policy.tsx': { anonymous: ['/privacy-policy'] },
  'routes/console-layout.tsx': { signedIn: ['/console'] },
  'routes/console.tsx': { signedIn: ['/console'] },
  'routes/console-second-factor.tsx': { signedIn: ['/console/second-factor'] },
  'routes/console-audit.tsx': { signedIn: ['/console/audit'] },
  'routes/console-staff.tsx': { signedIn: ['/console/staff'] },
  'routes/console-money.tsx': { signedIn: ['/console/money'] },
  'routes/console-money-order.tsx': { signedIn: ['/console/money/orders/{orderId}'] },
  'routes/console-tags.tsx': { signedIn: ['/console/tags'] },
  'routes/console-featured.tsx': { signedIn: ['/console/featured'] },
  'routes/console-health.tsx': { signedIn: ['/console/health'] },
  'routes/console-people.tsx': { signedIn: ['/console/people'] },
  'routes/console-people-person.tsx': { signedIn: ['/console/people/{userId}'] },
  'routes/console-reports.tsx': { signedIn: ['/console/reports'] },
  'routes/console-reports-character.tsx': { signedIn: ['/console/reports/{roleId}'] },
  'routes/not-found.tsx': { anonymous: [NOT_FOUND] },
}

describe.skipIf(!chromiumPath)('the console of every page', () => {
  let model: OpenAiApiDouble
  let server: RunningServer
  let browser: Browser
  let consoleToken = ''
  const ids: Ids = { roleId: '', ownRoleId: '', articleSlug: '', orderId: '', userId: '' }

  beforeAll(async () => {
    model = await startOpenAiApi({ reply: '*She nods.* Welcome back, traveller.' })
    const dataDir = seedStaff('rp-e2e-clean-', [admin], [[admin.email, 'admin']])
    server = await startServer({ DATA_DIR: dataDir, LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'e2e-model' })
    browser = await launchBrowser()
    const token = await apiLogin(server.url, admin)
    ;({ consoleToken } = await enrollByApi(server.url, token))
    const roles = await (await fetch(`${server.url}/api/roles?sort=newest`)).json()
    ids.roleId = (roles.data.items as { roleId: string; isAdult: boolean }[]).find((r) => !r.isAdult)?.roleId ?? ''
    ids.ownRoleId = await createCharacter(server.url, token, { name: 'Warden of the Still Lake' })
    const articles = await callApi<{ items: { slug: string }[] }>(server.url, token, '/blogs')
    ids.articleSlug = articles.body.data.items[0]?.slug ?? ''
    const order = await callApi<{ orderId: string }>(server.url, token, '/subscription', {
      method: 'POST',
      body: { paymentType: 'card', planId: 'plus', billingCycle: 'monthly' },
    })
    ids.orderId = String(order.body.data.orderId ?? '')
    const people = await callApi<{ items: { id: string }[] }>(
      server.url,
      token,
      `/admin/people?q=${encodeURIComponent(admin.email)}`,
      { consoleToken },
    )
    ids.userId = people.body.data.items[0]?.id ?? ''
    expect(Object.values(ids).every(Boolean), JSON.stringify(ids)).toBe(true)
  })
  afterAll(() => stopWithModelDouble({ model, server, browser }))

  it('visits every route of app/routes.ts', () => {
    expect(Object.keys(VISITS).sort()).toEqual([...new Set(routeFiles(routes))].sort())
  })

  /** Collects the page's console errors, uncaught errors, CSP violations and hydration messages. */
  async function watch(page: Page, problems: string[], where: { path: string }) {
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const source = `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`
        console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'} at ${source}`)
      })
    })
    page.on('console', (message) => {
      // The browser notes a page answered 404 as a failed load: that is the not-found page's status.
      const notFound = where.path.endsWith(NOT_FOUND) && message.location().url === page.url()
      if (notFound && message.text().includes('status of 404')) return
      if (message.type() === 'error' || HYDRATION.test(message.text()))
        problems.push(`${where.path}: console.${message.type()}: ${message.text()}`)
    })
    page.on('pageerror', (error) => problems.push(`${where.path}: uncaught: ${error.message}`))
  }

  /** Opens the page, waits for React to hydrate it and for what it fetches after, then a moment more. */
  async function visit(page: Page, prefix: string, path: string, where: { path: string }) {
    where.path = `${prefix}${path}`
    const response = await page.goto(`${server.url}${prefix}${path === '/' && prefix ? '' : path}`)
    expect(response?.status(), where.path).toBe(path === NOT_FOUND ? 404 : 200)
    await page.waitForFunction(HYDRATED)
    await page.waitForLoadState('networkidle')
    await page.waitForTimeout(300)
  }

  const fill = (path: string, chat = '') =>
    path.replace('{chat}', chat).replace(/\{(\w+)\}/g, (_, key: keyof Ids) => ids[key])

  const pathsOf = (kind: 'anonymous' | 'signedIn') => [
    ...new Set(Object.values(VISITS).flatMap((visits) => visits[kind] ?? [])),
  ]

  for (const locale of ['en', 'ar'] as const) {
    const prefix = locale === 'en' ? '' : `/${locale}`

    it(`shows every page to a visitor without a console error (${locale})`, async () => {
      const { context, page } = await personPage(browser, server.url, { lang: locale })
      const problems: string[] = []
      const where = { path: '' }
      await watch(page, problems, where)
      for (const path of pathsOf('anonymous')) await visit(page, prefix, fill(path), where)
      await context.close()
      expect(problems).toEqual([])
    })

    it(`shows every page to a signed-in admin without a console error (${locale})`, async () => {
      const { page } = await consoleTab(browser, server.url, admin, consoleToken, locale)
      const problems: string[] = []
      const where = { path: '' }
      await watch(page, problems, where)
      let chat = ''
      for (const path of pathsOf('signedIn')) {
        if (path === '{chat}') {
          await visit(page, prefix, chat, where)
          continue
        }
        await visit(page, prefix, fill(path), where)
        if (path.startsWith('/chat/new')) {
          await page.waitForURL((url) => /\/chat\/[^/]+$/.test(url.pathname) && !url.pathname.endsWith('/new'))
          await page.waitForFunction(HYDRATED)
          chat = new URL(page.url()).pathname.replace(prefix, '')
        }
        if (path.includes('/edit/new') || path.includes('/edit/form?')) await keepDraft(page)
      }
      await page.context().close()
      expect(problems).toEqual([])
    })
  }
})

/** Types into the editor's name so the form keeps a draft, then reloads: the draft is restored after hydration. */
async function keepDraft(page: Page) {
  const name = page.locator('#character-name')
  await name.waitFor()
  await name.fill('A draft kept in the browser')
  await page.waitForTimeout(500)
  await page.reload()
  await page.waitForFunction(HYDRATED)
  await page.waitForLoadState('networkidle')
  await expect.poll(() => name.inputValue()).toBe('A draft kept in the browser')
}

import { Mail } from 'lucide-react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { PRIVACY_POLICY_UPDATED } from '#contracts/site.ts'
import type { Route } from './+types/privacy-policy.ts'

export const handle = { i18n: ['legal'] }

/**
 * The policy, section by section: each a title and paragraphs (`p`) or a list (`ul`). Written to
 * match what the product stores (docs/blog-and-seo.md lists where each item lives); change both together.
 */
const SECTIONS = [
  {
    id: 'controller',
    title: 'privacy.controller.title',
    blocks: [{ p: 'privacy.controller.p1' }],
  },
  {
    id: 'account',
    title: 'privacy.account.title',
    blocks: [
      { p: 'privacy.account.p1' },
      {
        ul: [
          'privacy.account.email',
          'privacy.account.username',
          'privacy.account.password',
          'privacy.account.google',
          'privacy.account.settings',
        ],
      },
      { p: 'privacy.account.p2' },
    ],
  },
  {
    id: 'chats',
    title: 'privacy.chats.title',
    blocks: [{ p: 'privacy.chats.p1' }, { p: 'privacy.chats.p2' }, { p: 'privacy.chats.p3' }],
  },
  {
    id: 'characters',
    title: 'privacy.characters.title',
    blocks: [{ p: 'privacy.characters.p1' }],
  },
  {
    id: 'payments',
    title: 'privacy.payments.title',
    blocks: [{ p: 'privacy.payments.p1' }, { ul: ['privacy.payments.stripe', 'privacy.payments.btcpay'] }],
  },
  {
    id: 'cookies',
    title: 'privacy.cookies.title',
    blocks: [
      { p: 'privacy.cookies.p1' },
      {
        ul: ['privacy.cookies.lang', 'privacy.cookies.age', 'privacy.cookies.tokens', 'privacy.cookies.session'],
      },
      { p: 'privacy.cookies.p2' },
    ],
  },
  {
    id: 'verification',
    title: 'privacy.verification.title',
    blocks: [{ p: 'privacy.verification.p1' }],
  },
  { id: 'logs', title: 'privacy.logs.title', blocks: [{ p: 'privacy.logs.p1' }] },
  { id: 'email', title: 'privacy.email.title', blocks: [{ p: 'privacy.email.p1' }, { p: 'privacy.email.p2' }] },
  { id: 'purposes', title: 'privacy.purposes.title', blocks: [{ p: 'privacy.purposes.p1' }] },
  { id: 'sharing', title: 'privacy.sharing.title', blocks: [{ p: 'privacy.sharing.p1' }] },
  {
    id: 'retention',
    title: 'privacy.retention.title',
    blocks: [
      {
        ul: [
          'privacy.retention.account',
          'privacy.retention.tokens',
          'privacy.retention.payments',
          'privacy.retention.logs',
          'privacy.retention.contact',
        ],
      },
    ],
  },
  {
    id: 'rights',
    title: 'privacy.rights.title',
    blocks: [
      { p: 'privacy.rights.p1' },
      {
        ul: [
          'privacy.rights.access',
          'privacy.rights.correct',
          'privacy.rights.delete',
          'privacy.rights.object',
          'privacy.rights.withdraw',
          'privacy.rights.complain',
        ],
      },
      { p: 'privacy.rights.p2' },
    ],
  },
  { id: 'security', title: 'privacy.security.title', blocks: [{ p: 'privacy.security.p1' }] },
  { id: 'children', title: 'privacy.children.title', blocks: [{ p: 'privacy.children.p1' }] },
  { id: 'changes', title: 'privacy.changes.title', blocks: [{ p: 'privacy.changes.p1' }] },
] as const

/** `/privacy-policy`: what is stored, why, for how long, who else sees it, and your rights. */
export default function PrivacyPolicy({ params }: Route.ComponentProps) {
  const { t } = useTranslation('legal')
  const { t: tCommon } = useTranslation()
  const locale = routeLocale(params)
  const brand = { brand: tCommon('brand') }

  return (
    <article className="mx-auto max-w-3xl">
      <PageMeta title={t('privacy.title')} description={t('privacy.metaDescription')} />
      <h1 className="text-3xl font-bold sm:text-4xl">{t('privacy.title')}</h1>
      <p className="mt-2 text-sm text-zinc-400">
        <time dateTime={PRIVACY_POLICY_UPDATED}>
          {t('privacy.updated', { date: formatDate(locale, PRIVACY_POLICY_UPDATED) })}
        </time>
      </p>
      <p className="mt-6 text-lg text-zinc-300">{t('privacy.intro', brand)}</p>

      <nav aria-labelledby="privacy-toc" className="mt-8 rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
        <h2 id="privacy-toc" className="mb-3 text-sm font-semibold uppercase tracking-wide text-violet-300">
          {t('privacy.toc')}
        </h2>
        <ol className="grid list-inside list-decimal gap-x-6 gap-y-1.5 text-sm text-zinc-300 sm:grid-cols-2">
          {SECTIONS.map((section) => (
            <li key={section.id}>
              <a href={`#${section.id}`} className="hover:text-white hover:underline">
                {t(section.title)}
              </a>
            </li>
          ))}
          <li>
            <a href="#contact" className="hover:text-white hover:underline">
              {t('privacy.contact.title')}
            </a>
          </li>
        </ol>
      </nav>

      <div className="article-body mt-10">
        {SECTIONS.map((section) => (
          <section key={section.id} aria-labelledby={section.id}>
            <h2 id={section.id}>{t(section.title)}</h2>
            {section.blocks.map((block) =>
              'p' in block ? (
                <p key={block.p}>{t(block.p, brand)}</p>
              ) : (
                <ul key={block.ul[0]}>
                  {block.ul.map((item) => (
                    <li key={item}>{t(item, brand)}</li>
                  ))}
                </ul>
              ),
            )}
          </section>
        ))}
        <section aria-labelledby="contact">
          <h2 id="contact">{t('privacy.contact.title')}</h2>
          <p>{t('privacy.contact.p1')}</p>
        </section>
      </div>
      <LocalizedLink to="/links#contact" className="button-primary mt-4">
        <Mail aria-hidden="true" className="size-5" />
        {t('privacy.contact.button')}
      </LocalizedLink>
    </article>
  )
}

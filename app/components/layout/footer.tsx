import { LocalizedLink } from '#app/components/localized-link.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/** The spec's footer groups. The copyright year is the product's launch year (spec section 2). */
export function Footer() {
  const { t } = useTranslation()
  const groups = [
    {
      title: t('footer.navigation'),
      links: [
        { to: '/', label: t('nav.home') },
        { to: '/characters', label: t('nav.characters') },
        { to: '/subscribe', label: t('nav.pricing') },
        { to: '/blog', label: t('footer.blog') },
      ],
    },
    {
      title: t('footer.company'),
      links: [
        { to: '/links', label: t('footer.friendshipLinks') },
        { to: '/links#contact', label: t('footer.contactUs') },
      ],
    },
    { title: t('footer.legal'), links: [{ to: '/privacy-policy', label: t('footer.privacyPolicy') }] },
    { title: t('footer.followUs'), links: [{ to: '/blog', label: t('footer.blog') }] },
  ]
  return (
    <footer className="border-t border-zinc-800 bg-zinc-950 px-4 py-10 text-sm text-zinc-400 sm:px-6 lg:px-10">
      <div className="grid gap-8 sm:grid-cols-2 lg:grid-cols-6">
        {groups.map((group) => (
          <nav key={group.title} aria-label={group.title}>
            <h2 className="mb-3 font-semibold text-zinc-200">{group.title}</h2>
            <ul className="space-y-2">
              {group.links.map((link) => (
                <li key={link.to + link.label}>
                  <LocalizedLink to={link.to} className="hover:text-zinc-100">
                    {link.label}
                  </LocalizedLink>
                </li>
              ))}
            </ul>
          </nav>
        ))}
        <section aria-labelledby="footer-about">
          <h2 id="footer-about" className="mb-3 font-semibold text-zinc-200">
            {t('footer.aboutUs')}
          </h2>
          <p>{t('footer.aboutText')}</p>
        </section>
        <section aria-labelledby="footer-contact">
          <h2 id="footer-contact" className="mb-3 font-semibold text-zinc-200">
            {t('footer.contactUs')}
          </h2>
          <p>{t('footer.contactText')}</p>
        </section>
      </div>
      <p className="mt-10 border-t border-zinc-800 pt-6 text-center">
        {t('footer.copyright', { year: 2025, brand: t('brand') })}
      </p>
    </footer>
  )
}

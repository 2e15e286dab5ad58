import { index, type RouteConfig, route } from '@react-router/dev/routes'

// Every page lives under an optional locale prefix: `/characters` (English), `/fr/characters`.
// The prefix is validated in locale-layout.tsx; an unknown one is a 404.
export default [
  route(':lang?', 'routes/locale-layout.tsx', [
    index('routes/home.tsx'),
    route('characters', 'routes/characters.tsx'),
    route('characters/mine', 'routes/characters-mine.tsx'),
    route('characters/lorebooks', 'routes/characters-lorebooks.tsx'),
    route('characters/edit/new', 'routes/characters-edit-new.tsx'),
    route('characters/edit/form', 'routes/characters-edit-form.tsx'),
    route('characters/:id', 'routes/character.tsx'),
    route('chats', 'routes/chats.tsx'),
    route('chat/new', 'routes/chat-new.tsx'),
    route('chat/:id', 'routes/chat.tsx'),
    route('subscribe', 'routes/subscribe.tsx'),
    route('subscribe/success', 'routes/subscribe-success.tsx'),
    route('subscribe/sandbox', 'routes/subscribe-sandbox.tsx'),
    route('account', 'routes/account.tsx'),
    route('personas', 'routes/personas.tsx'),
    route('login', 'routes/login.tsx'),
    route('register', 'routes/register.tsx'),
    route('verify', 'routes/verify.tsx'),
    route('forgot-password', 'routes/forgot-password.tsx'),
    route('reset-password', 'routes/reset-password.tsx'),
    route('auth/callback/google', 'routes/google-callback.tsx'),
    route('blog', 'routes/blog.tsx'),
    route('blog/:slug', 'routes/blog-article.tsx'),
    route('links', 'routes/links.tsx'),
    route('privacy-policy', 'routes/privacy-policy.tsx'),
    route('console', 'routes/console-layout.tsx', [
      index('routes/console.tsx'),
      route('second-factor', 'routes/console-second-factor.tsx'),
      route('audit', 'routes/console-audit.tsx'),
      route('staff', 'routes/console-staff.tsx'),
      route('money', 'routes/console-money.tsx'),
      route('money/orders/:id', 'routes/console-money-order.tsx'),
      route('reports', 'routes/console-reports.tsx'),
      route('reports/:characterId', 'routes/console-reports-character.tsx'),
    ]),
    route('*', 'routes/not-found.tsx'),
  ]),
] satisfies RouteConfig

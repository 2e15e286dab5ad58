import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import type { z } from 'zod'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { adminApi } from '#app/features/console/admin-api.ts'
import { inputClass } from '#app/features/console/components/code-field.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { useUserInfo } from '#app/lib/user-info.ts'
import type { staffListSchema } from '#contracts/admin-staff.ts'
import type { Route } from './+types/console-staff.ts'

export const handle = { i18n: ['console'] }

type StaffList = z.infer<typeof staffListSchema>
type Ask = { kind: 'revoke' | 'reset'; email: string }

/**
 * `/console/staff` (admin): the staff, "Add a staff member" by e-mail with a role, Revoke and
 * "Reset second factor". The server asks a fresh code for each (adminApi opens the dialog).
 */
export default function ConsoleStaff({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const locale = routeLocale(params)
  const id = useId()
  const [list, setList] = useState<StaffList | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<'moderator' | 'admin'>('moderator')
  const [busy, setBusy] = useState(false)
  const [grantProblem, setGrantProblem] = useState<string | null>(null)
  const [ask, setAsk] = useState<Ask | null>(null)
  // The server refuses to revoke the caller, and resetting one's own second factor would shut the
  // console on oneself: the caller's own row offers neither (known once the user info has loaded).
  const user = useUserInfo()
  const isSelf = (memberEmail: string) => user !== null && memberEmail.toLowerCase() === user.email.toLowerCase()

  const load = useCallback(async () => {
    try {
      setList(await adminApi<StaffList>('/admin/staff'))
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
  }, [tc])
  useEffect(() => {
    void load()
  }, [load])

  const grant = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setGrantProblem(null)
    try {
      await adminApi('/admin/staff/grant', { method: 'POST', body: { email: email.trim(), role } })
      notify(t('staff.granted', { email: email.trim() }))
      setEmail('')
      await load()
    } catch (error) {
      setGrantProblem(apiErrorMessage(tc, error))
    }
    setBusy(false)
  }

  const act = async ({ kind, email: target }: Ask) => {
    await adminApi(kind === 'revoke' ? '/admin/staff/revoke' : '/admin/staff/reset-2fa', {
      method: 'POST',
      body: { email: target },
    })
    notify(t(kind === 'revoke' ? 'staff.revoked' : 'staff.resetDone', { email: target }))
    setAsk(null)
    await load()
  }

  return (
    <section>
      <h1 className="mb-4 text-2xl font-bold">{t('staff.title')}</h1>
      <form
        onSubmit={grant}
        noValidate
        aria-labelledby={`${id}-grant`}
        className="mb-6 grid gap-3 rounded-2xl border border-zinc-800 bg-zinc-900 p-5 sm:grid-cols-[1fr_auto_auto] sm:items-end"
      >
        <h2 id={`${id}-grant`} className="text-lg font-semibold sm:col-span-3">
          {t('staff.grantTitle')}
        </h2>
        <div>
          <label htmlFor={`${id}-email`} className="mb-1 block text-sm font-medium">
            {t('staff.email')}
          </label>
          <input
            id={`${id}-email`}
            type="email"
            dir="ltr"
            autoComplete="off"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            aria-invalid={grantProblem ? true : undefined}
            aria-describedby={grantProblem ? `${id}-problem` : undefined}
            className={`${inputClass} h-11`}
          />
        </div>
        <div>
          <label htmlFor={`${id}-role`} className="mb-1 block text-sm font-medium">
            {t('staff.role')}
          </label>
          <select
            id={`${id}-role`}
            value={role}
            onChange={(event) => setRole(event.target.value === 'admin' ? 'admin' : 'moderator')}
            className={`${inputClass} h-11`}
          >
            <option value="moderator">{t('role.moderator')}</option>
            <option value="admin">{t('role.admin')}</option>
          </select>
        </div>
        <button
          type="submit"
          className="button-primary h-11"
          disabled={busy || !email.trim()}
          data-testid="grant-staff"
        >
          {busy ? t('busy') : t('staff.grant')}
        </button>
        {grantProblem ? (
          <p id={`${id}-problem`} role="alert" className="text-sm text-rose-300 sm:col-span-3">
            {grantProblem}
          </p>
        ) : null}
      </form>
      {problem ? (
        <p role="alert" className="mb-3 text-rose-300">
          {problem}
        </p>
      ) : null}
      {!list ? (
        <p role="status" className="text-zinc-400">
          {t('loading')}
        </p>
      ) : (
        <div className="overflow-x-auto rounded-2xl border border-zinc-800">
          <table className="w-full text-sm" data-testid="staff-table">
            <caption className="sr-only">{t('staff.title')}</caption>
            <thead className="bg-zinc-900 text-zinc-300">
              <tr>
                <th scope="col" className="p-3 text-start">
                  {t('staff.name')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('staff.role')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('staff.since')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('staff.secondFactor')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('staff.actions')}
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((member) => (
                <tr key={member.userId} className="border-t border-zinc-800">
                  <td className="p-3">
                    <bdi dir="auto" className="block font-medium">
                      {member.username}
                    </bdi>
                    <span className="block text-xs text-zinc-400">
                      <bdi dir="ltr" className="whitespace-nowrap">
                        {member.email}
                      </bdi>
                    </span>
                  </td>
                  <td className="p-3">{t(`role.${member.role}`)}</td>
                  <td className="p-3 whitespace-nowrap">{formatDate(locale, member.grantedAt, 'medium')}</td>
                  <td className="p-3 whitespace-nowrap">{member.secondFactor ? t('staff.on') : t('staff.off')}</td>
                  <td className="p-3">
                    {isSelf(member.email) ? (
                      <p className="min-w-40 max-w-56 text-xs text-zinc-400" data-testid="staff-self-note">
                        {t('staff.selfNote')}
                      </p>
                    ) : (
                      <div className="flex flex-wrap gap-2">
                        <button
                          type="button"
                          className="button-ghost whitespace-nowrap"
                          onClick={() => setAsk({ kind: 'reset', email: member.email })}
                          aria-label={`${t('staff.reset')}: ${member.email}`}
                        >
                          {t('staff.reset')}
                        </button>
                        <button
                          type="button"
                          className="button-ghost whitespace-nowrap text-rose-300"
                          onClick={() => setAsk({ kind: 'revoke', email: member.email })}
                          aria-label={`${t('staff.revoke')}: ${member.email}`}
                        >
                          {t('staff.revoke')}
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {ask ? (
        <ConfirmDialog
          title={t(ask.kind === 'revoke' ? 'staff.revokeTitle' : 'staff.resetTitle', { email: ask.email })}
          text={t(ask.kind === 'revoke' ? 'staff.revokeText' : 'staff.resetText')}
          cancelLabel={t('cancel')}
          confirmLabel={t(ask.kind === 'revoke' ? 'staff.revoke' : 'staff.reset')}
          busyLabel={t('busy')}
          danger
          onConfirm={() => act(ask)}
          describeError={(error) => apiErrorMessage(tc, error)}
          onClose={() => setAsk(null)}
        />
      ) : null}
    </section>
  )
}

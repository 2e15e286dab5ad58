import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { fieldClass, NoteField } from '#app/features/console/components/note-field.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { useConsoleSubmit } from '#app/features/console/use-console-submit.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { MONEY_PROVIDERS, type MoneySubscription, SUBSCRIPTION_STATUSES } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'
import { cancelSubscription, listSubscriptions } from '../money-api.ts'
import { FilterSelect, ListState, PAGE_SIZE, Paging, SandboxMark } from './shared.tsx'

type Filter = { provider: string; status: string; userId: string }
const NO_FILTER: Filter = { provider: '', status: '', userId: '' }

/** The subscriptions with their provider state and period; a plan can be cancelled (with a note). */
export function SubscriptionsTab({ locale }: { locale: Locale }) {
  const { t } = useTranslation('console-money')
  const id = useId()
  const [draft, setDraft] = useState<Filter>(NO_FILTER)
  const [filter, setFilter] = useState<Filter>(NO_FILTER)
  const [page, setPage] = useState(1)
  const [cancelling, setCancelling] = useState<string | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const { data, problem, reload } = useAdminData(
    (signal) => listSubscriptions({ ...filter, userId: filter.userId.trim(), page, pageSize: PAGE_SIZE }, signal),
    JSON.stringify([filter, page]),
  )
  const providerLabel = (provider: string) => (provider === 'sandbox' ? t('sandbox') : provider)
  const apply = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setFilter(draft)
  }

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="sr-only">
        {t('tabs.subscriptions')}
      </h2>
      <form onSubmit={apply} aria-label={t('filters.label')} className="mb-4 grid gap-3 sm:grid-cols-3">
        <FilterSelect
          id={`${id}-provider`}
          label={t('filters.provider')}
          value={draft.provider}
          options={MONEY_PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))}
          onChange={(provider) => setDraft({ ...draft, provider })}
        />
        <FilterSelect
          id={`${id}-status`}
          label={t('filters.status')}
          value={draft.status}
          options={SUBSCRIPTION_STATUSES.map((s) => ({ value: s, label: t(`subscriptionStatus.${s}`) }))}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <div>
          <label htmlFor={`${id}-user`} className="mb-1 block text-sm font-medium">
            {t('filters.userId')}
          </label>
          <input
            id={`${id}-user`}
            dir="ltr"
            value={draft.userId}
            onChange={(event) => setDraft({ ...draft, userId: event.target.value })}
            className={fieldClass}
          />
        </div>
        <div className="flex gap-2 sm:col-span-3">
          <button type="submit" className="button-primary">
            {t('filters.apply')}
          </button>
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              setDraft(NO_FILTER)
              setFilter(NO_FILTER)
              setPage(1)
            }}
          >
            {t('filters.clear')}
          </button>
        </div>
      </form>
      {done ? (
        <p role="status" className="mb-3 text-emerald-300">
          {done}
        </p>
      ) : null}
      <ListState loaded={data !== null} empty={data?.items.length === 0} problem={problem} />
      {data && data.items.length > 0 ? (
        <ConsoleTable
          caption={t('tabs.subscriptions')}
          testId="money-subscriptions"
          columns={[
            t('columns.user'),
            t('columns.plan'),
            t('columns.provider'),
            t('columns.status'),
            t('columns.periodEnd'),
            t('columns.renewal'),
            t('columns.actions'),
          ]}
        >
          {data.items.map((row) => (
            <tr key={row.userId} className="border-t border-zinc-800 align-top">
              <td className="p-3 font-mono text-xs break-all">
                <bdi dir="ltr">{row.userId}</bdi>
              </td>
              <td className="p-3">
                <bdi dir="ltr">{row.planId}</bdi> · {t(`cycle.${row.billingCycle}`)}
              </td>
              <td className="p-3 whitespace-nowrap">{row.sandbox ? <SandboxMark /> : providerLabel(row.provider)}</td>
              <td className="p-3">{t(`subscriptionStatus.${row.status}`)}</td>
              <td className="p-3 whitespace-nowrap">{formatDateTime(locale, row.currentPeriodEnd)}</td>
              <td className="p-3">{row.cancelAtPeriodEnd ? t('endsAtPeriodEnd') : t('renews')}</td>
              <td className="p-3">
                {row.status === 'canceled' ? null : cancelling === row.userId ? (
                  <CancelForm
                    row={row}
                    onClose={(message) => {
                      setCancelling(null)
                      if (message) void reload().then(() => setDone(message))
                    }}
                  />
                ) : (
                  <button
                    type="button"
                    className="button-secondary px-3 py-1.5 text-sm"
                    onClick={() => {
                      setDone(null)
                      setCancelling(row.userId)
                    }}
                  >
                    {t('cancel.open')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ConsoleTable>
      ) : null}
      {data ? <Paging locale={locale} page={page} hasMore={data.hasMore} onPage={setPage} /> : null}
    </section>
  )
}

function CancelForm({ row, onClose }: { row: MoneySubscription; onClose: (done?: string) => void }) {
  const { t } = useTranslation('console-money')
  const { t: tc } = useTranslation()
  const id = useId()
  const [when, setWhen] = useState<'period-end' | 'now'>('period-end')
  const [note, setNote] = useState('')
  const { busy, problem, setProblem, run } = useConsoleSubmit((error) => apiErrorMessage(tc, error))
  const first = useRef<HTMLInputElement>(null)
  // Opened from its button (which it replaces): the keyboard carries on inside the form.
  useEffect(() => first.current?.focus(), [])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!note.trim()) {
      setProblem(t('refund.noteRequired'))
      return
    }
    void run(async () => {
      await cancelSubscription(row.userId, when, note.trim())
      onClose(t('cancel.done'))
    })
  }
  return (
    <form onSubmit={submit} className="min-w-64 space-y-3" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} className="font-semibold">
        {t('cancel.title')}
      </p>
      <fieldset>
        <legend className="mb-1 text-sm font-medium">{t('cancel.when')}</legend>
        {(['period-end', 'now'] as const).map((value) => (
          <label key={value} className="flex items-center gap-2 py-0.5">
            <input
              ref={value === 'period-end' ? first : undefined}
              type="radio"
              name={`${id}-when`}
              checked={when === value}
              onChange={() => setWhen(value)}
            />
            {value === 'now' ? t('cancel.now') : t('cancel.periodEnd')}
          </label>
        ))}
      </fieldset>
      <NoteField
        id={`${id}-note`}
        label={t('cancel.note')}
        value={note}
        onChange={setNote}
        invalid={problem !== null && !note.trim()}
        rows={2}
      />
      {problem ? (
        <p role="alert" className="text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="button-primary px-4 py-2 text-sm" disabled={busy}>
          {t('cancel.confirm')}
        </button>
        <button type="button" className="button-secondary px-4 py-2 text-sm" onClick={() => onClose()}>
          {t('cancel.keep')}
        </button>
      </div>
    </form>
  )
}

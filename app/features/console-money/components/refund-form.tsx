import { type FormEvent, useId, useState } from 'react'
import { fieldClass, NoteField } from '#app/features/console/components/note-field.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { MoneyOrder, MoneyPreview, MoneyRefundResult } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'
import { majorText, parseMajorAmount } from '../amounts.ts'
import { previewRefund, refundOrder } from '../money-api.ts'

/**
 * The refund of an order in two steps: the amount (all that is left by default) and a note, then
 * what it does (the money, the diamonds taken back, what the balance cannot cover, whether the
 * plan ends) before "Refund" sends it. The server asks for a fresh code if the last is old.
 */
export function RefundForm({
  locale,
  order,
  full,
  onDone,
}: {
  locale: Locale
  order: MoneyOrder
  /** The preview of refunding all that is left. */
  full: MoneyPreview
  onDone: (result: MoneyRefundResult) => void
}) {
  const { t } = useTranslation('console-money')
  const { t: tc } = useTranslation()
  const id = useId()
  const [amountText, setAmountText] = useState(majorText(full.refundable, order.currency))
  const [note, setNote] = useState('')
  const [preview, setPreview] = useState<MoneyPreview | null>(null)
  const [problem, setProblem] = useState<{ field?: 'amount' | 'note'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const money = (minor: number) => formatPrice(locale, minor, order.currency)
  const max = money(full.refundable)
  const failure = (error: unknown) =>
    apiErrorMessage(tc, error, {
      own: {
        REFUND_NOT_ALLOWED: (details) =>
          details?.reason === 'exceeds-refundable'
            ? t('refund.tooMuch', { max: money(details.refundable) })
            : undefined,
      },
    })

  const showPreview = async (event: FormEvent) => {
    event.preventDefault()
    const amount = parseMajorAmount(amountText, order.currency)
    if (amount === null || amount > full.refundable) {
      setProblem({ field: 'amount', text: t('refund.badAmount', { max }) })
      return
    }
    if (!note.trim()) {
      setProblem({ field: 'note', text: t('refund.noteRequired') })
      return
    }
    setProblem(null)
    setBusy(true)
    try {
      setPreview(await previewRefund(order.id, amount))
    } catch (error) {
      setProblem({ text: failure(error) })
    }
    setBusy(false)
  }

  const confirm = async () => {
    if (!preview) return
    setBusy(true)
    setProblem(null)
    try {
      onDone(await refundOrder(order.id, preview.amount, note.trim()))
    } catch (error) {
      setProblem({ text: failure(error) })
      setBusy(false)
    }
  }

  return (
    <section aria-labelledby={`${id}-title`} className="rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
      <h2 id={`${id}-title`} className="mb-3 text-lg font-semibold">
        {t('refund.title')}
      </h2>
      {preview ? (
        <div data-testid="refund-preview">
          <ul className="mb-4 space-y-1">
            <li>
              {t('refund.summary', {
                amount: money(preview.amount),
                paid: money(preview.paid),
                refunded: money(preview.refunded),
              })}
            </li>
            <li className="font-semibold">
              {t('refund.takesBack', { diamonds: formatNumber(locale, preview.diamondsDue) })}
            </li>
            {preview.diamondsUncollected > 0 ? (
              <li className="text-amber-300">
                {t('refund.uncollected', { diamonds: formatNumber(locale, preview.diamondsUncollected) })}
              </li>
            ) : null}
            {preview.endsPlan ? <li className="text-amber-300">{t('refund.endsPlan')}</li> : null}
          </ul>
          {problem ? (
            <p role="alert" className="mb-3 text-rose-300">
              {problem.text}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-2">
            <button type="button" className="button-primary" disabled={busy} onClick={() => void confirm()}>
              {t('refund.confirm', { amount: money(preview.amount) })}
            </button>
            <button type="button" className="button-secondary" disabled={busy} onClick={() => setPreview(null)}>
              {t('refund.change')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={showPreview} noValidate className="space-y-4">
          <div>
            <label htmlFor={`${id}-amount`} className="mb-1 block text-sm font-medium">
              {t('refund.amount', { currency: order.currency })}
            </label>
            <input
              id={`${id}-amount`}
              dir="ltr"
              inputMode="decimal"
              value={amountText}
              onChange={(event) => setAmountText(event.target.value)}
              aria-invalid={problem?.field === 'amount'}
              aria-describedby={`${id}-amount-hint${problem?.field === 'amount' ? ` ${id}-problem` : ''}`}
              className={`${fieldClass} max-w-48`}
            />
            <p id={`${id}-amount-hint`} className="mt-1 text-sm text-zinc-400">
              {t('refund.amountHint', { max })}
            </p>
          </div>
          <NoteField
            id={`${id}-note`}
            label={t('refund.note')}
            value={note}
            onChange={setNote}
            invalid={problem?.field === 'note'}
            describedBy={problem?.field === 'note' ? `${id}-problem` : undefined}
          />
          {problem ? (
            <p id={`${id}-problem`} role="alert" className="text-rose-300">
              {problem.text}
            </p>
          ) : null}
          <button type="submit" className="button-primary" disabled={busy}>
            {t('refund.preview')}
          </button>
        </form>
      )}
    </section>
  )
}

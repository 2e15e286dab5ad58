import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { ConsoleTable, tableWrapClass, thClass } from '#app/features/console/components/console-table.tsx'
import { useConsoleSubmit } from '#app/features/console/use-console-submit.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { type HealthJobs, JOB_STATES } from '#contracts/admin-health.ts'
import type { Locale } from '#contracts/locales.ts'
import { retryJob } from '../health-api.ts'

type FailedJob = HealthJobs['failed'][number]

const inputClass =
  'w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 py-2 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'

/**
 * The job queue (ADR 057): how many jobs are in each state, per kind, and the jobs that failed
 * for good with their error; Retry asks for a note (kept in the audit log) and queues the job
 * again with all its attempts. `onRetried` reloads the queue.
 */
export function JobsPanel({ locale, jobs, onRetried }: { locale: Locale; jobs: HealthJobs; onRetried: () => void }) {
  const { t } = useTranslation('console-health')
  const id = useId()
  const [open, setOpen] = useState<number | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const count = (value: number) => formatNumber(locale, value)
  const totals = Object.fromEntries(
    JOB_STATES.map((state) => [state, jobs.kinds.reduce((sum, kind) => sum + (kind.counts[state] ?? 0), 0)]),
  ) as Record<(typeof JOB_STATES)[number], number>

  return (
    <section aria-labelledby={`${id}-title`} className="space-y-4">
      <h2 id={`${id}-title`} className="text-xl font-semibold">
        {t('jobs.title')}
      </h2>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="job-totals">
        {JOB_STATES.map((state) => (
          <div key={state} className="rounded-2xl border border-zinc-800 bg-zinc-900 p-4">
            <dt className="text-sm text-zinc-400">{t(`jobs.states.${state}`)}</dt>
            <dd
              className={`text-2xl font-semibold tabular-nums ${state === 'failed' && totals.failed > 0 ? 'text-rose-300' : ''}`}
            >
              {count(totals[state])}
            </dd>
          </div>
        ))}
      </dl>
      {jobs.kinds.length === 0 ? (
        <p className="text-zinc-400">{t('jobs.noJobs')}</p>
      ) : (
        <div className={tableWrapClass}>
          <table className="w-full text-sm" data-testid="job-kinds">
            <caption className="sr-only">{t('jobs.byKind')}</caption>
            <thead className="bg-zinc-900 text-zinc-300">
              <tr>
                <th scope="col" className={thClass}>
                  {t('jobs.kind')}
                </th>
                {JOB_STATES.map((state) => (
                  <th key={state} scope="col" className="p-3 text-end font-medium">
                    {t(`jobs.states.${state}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {jobs.kinds.map((kind) => (
                <tr key={kind.kind} className="border-t border-zinc-800">
                  <th scope="row" className="p-3 text-start font-mono font-normal">
                    <bdi dir="ltr">{kind.kind}</bdi>
                  </th>
                  {JOB_STATES.map((state) => (
                    <td key={state} className="p-3 text-end tabular-nums">
                      {count(kind.counts[state] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h3 className="pt-2 text-lg font-semibold">{t('jobs.failedTitle')}</h3>
      {done ? (
        <p role="status" className="text-emerald-300" data-testid="job-retried">
          {done}
        </p>
      ) : null}
      {jobs.failed.length === 0 ? (
        <p className="text-zinc-400">{t('jobs.noFailed')}</p>
      ) : (
        <ConsoleTable
          caption={t('jobs.failedTitle')}
          testId="failed-jobs"
          columns={[t('jobs.kind'), t('jobs.error'), t('jobs.attempts'), t('jobs.failedAt'), t('jobs.actions')]}
        >
          {jobs.failed.map((job) => (
            <tr key={job.id} className="border-t border-zinc-800 align-top">
              <td className="p-3 font-mono whitespace-nowrap">
                <bdi dir="ltr">{job.kind}</bdi>
                <span className="block text-xs text-zinc-400">#{count(job.id)}</span>
              </td>
              <td className="max-w-md p-3 break-words">
                <span dir="auto">{job.lastError ?? t('none')}</span>
              </td>
              <td className="p-3 whitespace-nowrap tabular-nums">
                {t('jobs.attemptsOf', { attempts: count(job.attempts), max: count(job.maxAttempts) })}
              </td>
              <td className="p-3 whitespace-nowrap">{formatDateTime(locale, job.failedAt)}</td>
              <td className="p-3">
                {open === job.id ? (
                  <RetryForm
                    job={job}
                    onClose={(retried) => {
                      setOpen(null)
                      if (retried !== undefined) {
                        setDone(t('jobs.retried', { id: count(retried) }))
                        onRetried()
                      }
                    }}
                  />
                ) : (
                  <button
                    type="button"
                    className="button-secondary px-4 py-2 text-sm"
                    aria-label={t('jobs.retryLabel', { id: count(job.id), kind: job.kind })}
                    onClick={() => {
                      setDone(null)
                      setOpen(job.id)
                    }}
                  >
                    {t('jobs.retry')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </ConsoleTable>
      )}
    </section>
  )
}

/** The note a retry needs, then the retry; `onClose` gets the job's id once it is queued again. */
function RetryForm({ job, onClose }: { job: FailedJob; onClose: (retried?: number) => void }) {
  const { t } = useTranslation('console-health')
  const { t: tc } = useTranslation()
  const id = useId()
  const [note, setNote] = useState('')
  const { busy, problem, setProblem, run } = useConsoleSubmit((error) => apiErrorMessage(tc, error))
  const field = useRef<HTMLTextAreaElement>(null)
  // Opened from its button (which it replaces): the keyboard carries on in the note.
  useEffect(() => field.current?.focus(), [])
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!note.trim()) {
      setProblem(t('jobs.noteNeeded'))
      return
    }
    void run(async () => {
      const result = await retryJob(job.id, note.trim())
      onClose(result.id)
    })
  }
  return (
    <form onSubmit={submit} noValidate className="min-w-64 space-y-3">
      <div>
        <label htmlFor={`${id}-note`} className="mb-1 block text-sm font-medium">
          {t('jobs.note')}
        </label>
        <textarea
          ref={field}
          id={`${id}-note`}
          dir="auto"
          rows={2}
          required
          value={note}
          onChange={(event) => setNote(event.target.value)}
          aria-invalid={problem !== null && !note.trim()}
          className={inputClass}
        />
      </div>
      {problem ? (
        <p role="alert" className="text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="button-primary px-4 py-2 text-sm" disabled={busy}>
          {t('jobs.confirmRetry')}
        </button>
        <button type="button" className="button-secondary px-4 py-2 text-sm" onClick={() => onClose()}>
          {t('jobs.cancel')}
        </button>
      </div>
    </form>
  )
}

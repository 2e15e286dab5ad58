import type { ReactNode } from 'react'

/** The frame of the account pages: a centred card with a title. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto mt-6 max-w-md rounded-2xl border border-zinc-800 bg-zinc-900 p-6 sm:p-8">
      <h1 className="mb-6 text-2xl font-bold">{title}</h1>
      {children}
    </section>
  )
}

export function Field({
  label,
  hint,
  ...input
}: { label: string; hint?: string } & React.InputHTMLAttributes<HTMLInputElement> & { name: string }) {
  const id = `field-${input.name}`
  return (
    <div className="mb-4">
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="h-11 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none"
        {...input}
      />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-400">
          {hint}
        </p>
      ) : null}
    </div>
  )
}

export function FormMessage({ kind, children }: { kind: 'error' | 'success'; children: ReactNode }) {
  return (
    <p
      role={kind === 'error' ? 'alert' : 'status'}
      className={`mb-4 rounded-lg p-3 text-sm ${kind === 'error' ? 'bg-rose-950/60 text-rose-200' : 'bg-emerald-950/60 text-emerald-200'}`}
    >
      {children}
    </p>
  )
}

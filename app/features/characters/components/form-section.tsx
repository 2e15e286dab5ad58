import type { ReactNode } from 'react'

/** One titled part of the character form (Identity, Story, Greetings, Settings, Languages). */
export function Section({ title, id, children }: { title: string; id?: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mb-6 rounded-2xl border border-zinc-800 bg-zinc-900/60 p-4 sm:p-5">
      <h2 id={id} className="mb-4 text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  )
}

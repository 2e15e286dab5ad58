import { useState } from 'react'

/**
 * A console form's send: `busy` while `action` runs, and when it throws, its failure in words from
 * `describeError` with the form ready to send again. After a success the form stays busy: its
 * action closes it (a dialog, the row's form) or moves on.
 */
export function useConsoleSubmit(describeError: (error: unknown) => string) {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const run = async (action: () => Promise<void>) => {
    setBusy(true)
    setProblem(null)
    try {
      await action()
    } catch (error) {
      setBusy(false)
      setProblem(describeError(error))
    }
  }
  return { busy, problem, setProblem, run }
}

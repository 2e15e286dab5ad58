import { useRef, useState } from 'react'

/**
 * A file picked in a hidden input and read by `read`: busy while it runs, a failure worded by
 * `describe` (null again on the next pick), and the input emptied after, so the same file can be
 * picked again.
 */
export function useFilePick(read: (file: File) => Promise<void>, describe: (failure: unknown) => string) {
  const input = useRef<HTMLInputElement>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const pick = async (file: File | undefined) => {
    if (!file) return
    setBusy(true)
    setProblem(null)
    try {
      await read(file)
    } catch (failure) {
      setProblem(describe(failure))
    } finally {
      setBusy(false)
      if (input.current) input.current.value = ''
    }
  }
  return { input, busy, problem, pick }
}

export type FilePick = ReturnType<typeof useFilePick>

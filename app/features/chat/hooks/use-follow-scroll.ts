import { useEffect, useLayoutEffect, useRef } from 'react'

/**
 * Keeps a scrolling list at its bottom while it grows (a reply streaming in), unless the reader
 * scrolled up to read earlier messages. `follow()` and `stay()` say what the next change should do;
 * a new `key` (another conversation) follows again.
 */
export function useFollowScroll(_key: string) {
  const scroller = useRef<HTMLDivElement>(null)
  const stick = useRef(true)

  useEffect(() => {
    stick.current = true
  }, [])

  // After every render: the list may have grown.
  useLayoutEffect(() => {
    const element = scroller.current
    if (element && stick.current) element.scrollTop = element.scrollHeight
  })

  const onScroll = () => {
    const element = scroller.current
    if (element) stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80
  }

  return {
    scroller,
    onScroll,
    follow: () => {
      stick.current = true
    },
    stay: () => {
      stick.current = false
    },
  }
}

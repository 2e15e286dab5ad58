/**
 * How a model download shows its progress: a bar redrawn in the terminal when the output is a TTY,
 * and a log line (info) every 5 % with the percent, the megabytes and the speed.
 */

export type ProgressOutput = { isTTY?: boolean; columns?: number; write(text: string): unknown }

type Log = { info(obj: object, msg: string): void }

const LOG_STEP_PERCENT = 5
const BAR_INTERVAL_MS = 200
const MB = 1_000_000

export function createProgressReporter(options: {
  name: string
  totalBytes: number | null
  startBytes: number
  log: Log
  output: ProgressOutput
  now?: () => number
}) {
  const { totalBytes, log, output } = options
  const now = options.now ?? Date.now
  const startedAt = now()
  const drawBar = Boolean(output.isTTY)
  let lastLogged = totalBytes ? Math.floor(((options.startBytes / totalBytes) * 100) / LOG_STEP_PERCENT) : 0
  let lastDrawn = 0
  let lastBytes = options.startBytes
  let drew = false

  const percent = (received: number): number | null =>
    totalBytes ? Math.min(100, Math.floor((received / totalBytes) * 1000) / 10) : null

  /** Bytes a second since this download (or resumption) began. */
  const speed = (received: number) => {
    const seconds = Math.max(0.001, (now() - startedAt) / 1000)
    return (received - options.startBytes) / seconds
  }

  function draw(received: number) {
    const p = percent(received)
    const width = 30
    const filled = p === null ? 0 : Math.round((p / 100) * width)
    const bar = p === null ? '' : `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.toFixed(1)} % `
    const sizes = `${(received / MB).toFixed(0)}${totalBytes ? `/${(totalBytes / MB).toFixed(0)}` : ''} MB`
    output.write(`\r\x1b[K${options.name} ${bar}${sizes} ${(speed(received) / MB).toFixed(1)} MB/s`)
    drew = true
  }

  return {
    percent,
    update(received: number) {
      lastBytes = received
      const p = percent(received)
      if (p !== null && Math.floor(p / LOG_STEP_PERCENT) > lastLogged) {
        lastLogged = Math.floor(p / LOG_STEP_PERCENT)
        log.info(
          {
            model: options.name,
            percent: Math.floor(p),
            receivedMB: Math.round(received / MB),
            totalMB: totalBytes ? Math.round(totalBytes / MB) : null,
            mbPerSecond: Math.round((speed(received) / MB) * 10) / 10,
          },
          'embedded model download',
        )
      }
      if (drawBar && now() - lastDrawn >= BAR_INTERVAL_MS) {
        lastDrawn = now()
        draw(received)
      }
    },
    end() {
      if (!drawBar) return
      draw(lastBytes)
      if (drew) output.write('\n')
    },
  }
}

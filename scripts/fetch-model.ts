// `npm run model:fetch`: downloads the embedded model's file (EMBEDDED_MODEL, default the model of
// ADR 037) into DATA_DIR/models now, with the progress bar, instead of in the background at the
// first start: for a container image built with the model inside, or a machine prepared ahead of
// its first start. Resumable like the server's own download; exit code 1 when it fails (the hint
// says how to place the file by hand).
import { createModelFile } from '#server/modules/models/embedded/model-file.ts'
import { parseModelSource } from '#server/modules/models/embedded/model-source.ts'

const print = (level: string) => (obj: object, msg: string) => console.log(`${level} ${msg} ${JSON.stringify(obj)}`)
const log = { info: print('info'), warn: print('warn') }
const source = parseModelSource(process.env.EMBEDDED_MODEL ?? '')
const file = createModelFile({
  source,
  dataDir: process.env.DATA_DIR ?? './data',
  log,
  allowDownload: true,
  // One try: a script that fails says so at once rather than waiting for the next.
  retryDelaysMs: [24 * 60 * 60_000],
})
file.start()
const timer = setInterval(async () => {
  const status = file.status()
  if (status.state === 'failed') {
    clearInterval(timer)
    console.error(`The model could not be fetched: ${status.message}\nHow to fix it: ${status.hint}`)
    await file.close()
    process.exit(1)
  }
}, 500)
const where = await file.ready()
clearInterval(timer)
console.log(`The embedded model is ready: ${where}`)
await file.close()

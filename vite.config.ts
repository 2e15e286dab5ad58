import { randomBytes } from 'node:crypto'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin } from 'vite'

// One id per build, shared by the client and server bundles (the config is read once per build).
process.env.BUILD_ID ??= `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
const buildId = process.env.BUILD_ID
const buildTimestamp = Date.now()

/**
 * Writes `builds/latest.json` and `builds/meta/<id>.json` into the client output. The browser polls
 * the first to learn that a newer build is deployed (spec section 7).
 */
function buildMetadata(): Plugin {
  return {
    name: 'build-metadata',
    applyToEnvironment: (environment) => environment.name === 'client',
    generateBundle() {
      const info = JSON.stringify({ id: buildId, timestamp: buildTimestamp })
      this.emitFile({ type: 'asset', fileName: 'builds/latest.json', source: info })
      this.emitFile({ type: 'asset', fileName: `builds/meta/${buildId}.json`, source: info })
    },
  }
}

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), buildMetadata()],
  define: {
    __BUILD_ID__: JSON.stringify(buildId),
  },
  build: { target: 'es2022' },
})

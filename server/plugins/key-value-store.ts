import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'

declare module 'fastify' {
  interface FastifyInstance {
    kv: KeyValueStore
  }
}

export default fp(
  async function keyValueStore(app: FastifyInstance, options: { store: KeyValueStore }) {
    app.decorate('kv', options.store)
    app.addHook('onClose', async () => {
      await options.store.close()
    })
  },
  { name: 'key-value-store' },
)

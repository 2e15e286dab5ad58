import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { DatabaseHandle } from '#db/client.ts'

declare module 'fastify' {
  interface FastifyInstance {
    database: DatabaseHandle
  }
}

/**
 * Makes the database available to routes and closes it after the server has drained.
 * The handle is opened by the caller (server entry or test helper), which also migrates it.
 */
export default fp(
  async function database(app: FastifyInstance, options: { handle: DatabaseHandle; closeOnShutdown: boolean }) {
    app.decorate('database', options.handle)
    if (options.closeOnShutdown) {
      app.addHook('onClose', async () => {
        await options.handle.close()
      })
    }
  },
  { name: 'database' },
)

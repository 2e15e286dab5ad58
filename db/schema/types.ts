import { customType } from 'drizzle-orm/pg-core'

/** Raw bytes (images): a Buffer in Node, `bytea` in PostgreSQL. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
})

/** A full-text search vector; only ever written by PostgreSQL itself (generated column). */
export const tsvector = customType<{ data: string }>({
  dataType: () => 'tsvector',
})

// The whole schema, for Drizzle's typed client and for drizzle-kit. One file per table group.

export * from './auth.ts'
export * from './chat.ts'
export * from './diamonds.ts'
export * from './images.ts'
export * from './jobs.ts'
export * from './payments.ts'
export * from './reports.ts'
export * from './roles.ts'
export * from './users.ts'

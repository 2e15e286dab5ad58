// The whole schema, for Drizzle's typed client and for drizzle-kit. One file per table group.

export * from './auth.ts'
export * from './diamonds.ts'
export * from './images.ts'
export * from './roles.ts'
export * from './users.ts'

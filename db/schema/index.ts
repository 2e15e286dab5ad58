// The whole schema, for Drizzle's typed client and for drizzle-kit. One file per table group.
export * from './users.ts'

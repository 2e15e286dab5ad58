// The one rule for a lost database connection lives with the database client, which uses it too
// (db/connection-errors.ts); the server's error handler and routes import it from here.
export { isDatabaseUnavailable } from '#db/connection-errors.ts'

import { createHash, randomBytes } from 'node:crypto'

/** A one-time secret for a link or a refresh token: 256 random bits, URL-safe. */
export const newSecret = () => randomBytes(32).toString('base64url')

/** What is stored of a secret: its hash, so a copy of the database opens nothing. */
export const secretHash = (value: string) => createHash('sha256').update(value).digest('hex')

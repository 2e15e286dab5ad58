import { hash, verify } from '@node-rs/argon2'
import commonPasswords from 'fxa-common-password-list'
import { PASSWORD_MAX, PASSWORD_MIN } from '#contracts/accounts.ts'

// argon2id (the library's default algorithm) with OWASP's recommended memory and time costs.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

// Compared against when the account does not exist, so a wrong e-mail takes as long as a wrong password.
let dummyHash: Promise<string> | null = null

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hashPassword('not-a-real-password-for-timing')
    await verify(await dummyHash, password)
    return false
  }
  try {
    return await verify(stored, password)
  } catch {
    return false
  }
}

/** Why a password is refused, or null: length bounds and a list of passwords leaked most often. */
export function passwordProblem(password: string): 'too-short' | 'too-long' | 'too-common' | null {
  if ([...password].length < PASSWORD_MIN) return 'too-short'
  if (password.length > PASSWORD_MAX) return 'too-long'
  if (commonPasswords.test(password) || commonPasswords.test(password.toLowerCase())) return 'too-common'
  return null
}

import { useOutletContext } from 'react-router'
import type { z } from 'zod'
import type { adminMeSchema } from '#contracts/admin-staff.ts'

export type AdminMe = z.infer<typeof adminMeSchema>

/** What the console layout hands its pages: the caller's staff state and a way to read it again. */
export type ConsoleState = { me: AdminMe; refresh: () => Promise<void> }

export const useConsoleState = () => useOutletContext<ConsoleState>()

/** The console's pages; an entry shows only when its page exists and the role may open it. */
export const CONSOLE_PAGES = [
  { key: 'overview', path: '/console', role: 'moderator' },
  { key: 'tags', path: '/console/tags', role: 'moderator' },
  { key: 'featured', path: '/console/featured', role: 'moderator' },
  { key: 'people', path: '/console/people', role: 'admin' },
  { key: 'reports', path: '/console/reports', role: 'moderator' },
  { key: 'money', path: '/console/money', role: 'admin' },
  { key: 'health', path: '/console/health', role: 'admin' },
  { key: 'audit', path: '/console/audit', role: 'admin' },
  { key: 'staff', path: '/console/staff', role: 'admin' },
] as const

/** Six digits or a recovery code, spaces and dashes kept for the server to read as it reads them. */
export const cleanCode = (value: string) => value.trim()

/** A TOTP secret in groups of four characters, for typing by hand. */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ')

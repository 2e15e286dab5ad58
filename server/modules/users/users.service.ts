import type { UsersRepo } from './users.repo.ts'

/**
 * What other modules may know about, or change in, a user's row: the public name and the
 * preferences. Credentials are auth's, the account page and deletion are account's.
 */
export function createUsersService(repo: UsersRepo) {
  return {
    /** The public name (it signs characters); '' for an account that no longer exists. */
    async usernameOf(userId: string): Promise<string> {
      return (await repo.usernameOf(userId)) ?? ''
    },

    /** The account of an e-mail address (any case), or null: the operator's command line names staff by it. */
    async idByEmail(email: string): Promise<string | null> {
      return repo.idByEmail(email)
    },

    /** Whether the user chose, once confirmed 18 or older, to see adult characters. */
    async showsAdultContent(userId: string): Promise<boolean> {
      return repo.showsAdultContent(userId)
    },

    async setShowsAdultContent(userId: string, show: boolean): Promise<void> {
      await repo.setShowsAdultContent(userId, show)
    },
  }
}

export type UsersService = ReturnType<typeof createUsersService>

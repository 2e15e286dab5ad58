// Set-based seeding of large tables for the benchmarks: users, chat sessions and messages are made by
// the database itself (generate_series), so a million messages take seconds, not minutes.
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'

export const BENCH_PASSWORD = 'bench-password-not-for-production-7'
export const benchEmail = (n: number) => `bench${n}@bench.test`

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[]

/** `count` verified users `bench1`...`benchN` with BENCH_PASSWORD (one argon2id hash shared by all). */
export async function seedBenchUsers(db: Db, count: number): Promise<void> {
  const hash = await hashPassword(BENCH_PASSWORD)
  await db.execute(sql`
    insert into users (username, email, password_hash, email_verified_at)
    select 'bench' || g, 'bench' || g || '@bench.test', ${hash}, now()
    from generate_series(1, ${count}::int) g`)
}

/** `count` chat sessions spread over the bench users and the first 1,000 roles; returns their ids. */
export async function seedBenchSessions(db: Db, count: number): Promise<string[]> {
  if (count <= 0) return []
  return rowsOf<{ id: string }>(
    await db.execute(sql`
      with u as (select array_agg(id order by username) a from users where email like '%@bench.test'),
           r as (select array_agg(id order by id) a from (select id from roles order by id limit 1000) x)
      insert into chat_sessions (user_id, role_id, last_message_preview, created_at, updated_at)
      select u.a[1 + (g % cardinality(u.a))], r.a[1 + (g % cardinality(r.a))], 'A stored message for the benchmark.',
             now() - g * interval '1 minute', now() - g * interval '1 minute'
      from u, r, generate_series(0, ${count - 1}::int) g
      returning id`),
  ).map((r) => r.id)
}

/**
 * `sessions` chat sessions spread over the bench users and the first roles, each with
 * `messagesPerSession` messages alternating user and character, oldest first. Inserted in slices of
 * sessions so memory stays flat. Returns the session ids of the first bench user.
 */
export async function seedBenchChats(
  db: Db,
  options: { sessions: number; messagesPerSession: number; slice?: number },
): Promise<{ firstUserSessions: string[] }> {
  const ids = await seedBenchSessions(db, options.sessions)
  await seedMessages(db, ids, options.messagesPerSession, { slice: options.slice })
  const first = rowsOf<{ id: string }>(
    await db.execute(sql`
      select s.id from chat_sessions s join users on users.id = s.user_id
      where users.email = ${benchEmail(1)} order by s.updated_at desc`),
  ).map((r) => r.id)
  return { firstUserSessions: first }
}

/**
 * `count` messages in each of `sessionIds`, oldest first, alternating user and character, in slices
 * of `slice` sessions (500) so memory stays flat. `interleaved`: the sessions' messages take turns
 * (message 1 of every session, then message 2, ...) as chats running side by side would, instead
 * of one session after the other.
 */
export async function seedMessages(
  db: Db,
  sessionIds: string[],
  count: number,
  options: { slice?: number | undefined; interleaved?: boolean } = {},
): Promise<void> {
  if (count <= 0) return
  const slice = options.slice ?? 500
  for (let i = 0; i < sessionIds.length; i += slice) {
    const ids = sessionIds.slice(i, i + slice)
    await db.execute(sql`
      insert into chat_messages (session_id, author, content, tokens, created_at)
      select s.id::uuid, case when g % 2 = 0 then 'user' else 'assistant' end,
             'Message ' || g || ': the storm rolled over the cliffs and the lighthouse kept its lamp burning through the night.',
             24, now() - (${count}::int - g) * interval '1 second'
      from unnest(${`{${ids.join(',')}}`}::text[]) with ordinality as s(id, n), generate_series(1, ${count}::int) g
      ${options.interleaved ? sql`order by g, s.n` : sql``}`)
  }
}

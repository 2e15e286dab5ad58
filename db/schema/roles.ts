import { type SQL, sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import type { CardExtras, Lorebook } from '#contracts/characters.ts'
import { images } from './images.ts'
import { tsvector } from './types.ts'
import { users } from './users.ts'

export const roleVisibility = pgEnum('role_visibility', ['public', 'private'])

/**
 * Whether the public sees a tag (ADR 059): `visible`, `hidden` by an operator, or `pending` (made by
 * a user while the operator's "user-made tags start hidden" policy was on, not yet approved). A tag
 * that is not visible stays on its characters but is shown nowhere public.
 */
export const tagState = pgEnum('tag_state', ['visible', 'hidden', 'pending'])

/** Characters ("roles" in the spec's API). `publicId` is what URLs and the API use. */
export const roles = pgTable(
  'roles',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    publicId: text('public_id').notNull(),
    name: text('name').notNull(),
    avatarImageId: uuid('avatar_image_id').references(() => images.id),
    /** The blurred avatar shown to viewers who have not confirmed their age (adult roles only). */
    avatarBlurredImageId: uuid('avatar_blurred_image_id').references(() => images.id),
    bannerImageId: uuid('banner_image_id').references(() => images.id),
    creatorId: uuid('creator_id').references(() => users.id, { onDelete: 'set null' }),
    visibility: roleVisibility('visibility').notNull().default('public'),
    isAdult: boolean('is_adult').notNull().default(false),
    introduction: text('introduction').notNull().default(''),
    scenario: text('scenario').notNull().default(''),
    personality: text('personality').notNull().default(''),
    description: text('description').notNull().default(''),
    firstMessage: text('first_message').notNull().default(''),
    alternateGreetings: jsonb('alternate_greetings').$type<string[]>().notNull().default([]),
    exampleDialogue: text('example_dialogue').notNull().default(''),
    /** The lorebook (`character_book` of a Character Card) the chat draws on when its keys appear. */
    characterBook: jsonb('character_book').$type<Lorebook>(),
    /** Card fields the form does not show (system prompt, extensions, ...), kept for export. */
    cardExtras: jsonb('card_extras').$type<Partial<CardExtras>>().notNull().default({}),
    chatCount: integer('chat_count').notNull().default(0),
    popularity: integer('popularity').notNull().default(0),
    ratingCount: integer('rating_count').notNull().default(0),
    ratingSum: integer('rating_sum').notNull().default(0),
    /** ratingSum / ratingCount, kept with them so the rating sort can use an index. */
    ratingAverage: real('rating_average').notNull().default(0),
    /**
     * The locale the character's own texts (name, introduction, scenario, greetings) are written
     * in; translations to other locales are rows of `role_translations` (ADR 039).
     */
    sourceLanguage: text('source_language').notNull().default('en'),
    /**
     * Name, tag names and introduction split into words (`searchWords`, in the source language),
     * kept by the repo; the search vector is built from it.
     */
    searchText: text('search_text').notNull().default(''),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs((): SQL => sql`to_tsvector('simple', ${roles.searchText})`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('roles_public_id_key').on(table.publicId),
    // One index per sort of the public listing; the id breaks ties so pages never overlap.
    index('roles_public_popularity_idx')
      .on(table.popularity.desc(), table.id.desc())
      .where(sql`${table.visibility} = 'public'`),
    index('roles_public_newest_idx')
      .on(table.createdAt.desc(), table.id.desc())
      .where(sql`${table.visibility} = 'public'`),
    index('roles_public_rating_idx')
      .on(table.ratingAverage.desc(), table.ratingCount.desc(), table.id.desc())
      .where(sql`${table.visibility} = 'public'`),
    index('roles_creator_idx').on(table.creatorId, table.createdAt.desc()),
    index('roles_search_idx').using('gin', table.search),
  ],
)

/**
 * Tags have a slug (URLs, API) and a name per locale. A tag a user made by typing a new name on a
 * character (`userMade`) counts against that user's limit and is deleted once no character carries
 * it any more; the others (the site's own) stay.
 */
export const tags = pgTable(
  'tags',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    slug: text('slug').notNull(),
    names: jsonb('names').$type<Record<string, string>>().notNull(),
    userMade: boolean('user_made').notNull().default(false),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    state: tagState('state').notNull().default('visible'),
  },
  (table) => [uniqueIndex('tags_slug_key').on(table.slug), index('tags_created_by_idx').on(table.createdBy)],
)

/**
 * Which tags a role carries. Each row also holds a copy of the role's listing keys (public or not,
 * popularity, date, rating), so a tag-filtered page is one short index scan instead of a join over
 * every role with that tag. Database triggers (migration 0002) keep the copies equal to `roles`;
 * code only ever writes `role_id` and `tag_id`.
 */
export const roleTags = pgTable(
  'role_tags',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    isPublic: boolean('is_public').notNull().default(false),
    popularity: integer('popularity').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    ratingAverage: real('rating_average').notNull().default(0),
    ratingCount: integer('rating_count').notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.roleId, table.tagId] }),
    index('role_tags_tag_idx').on(table.tagId, table.roleId),
    index('role_tags_popularity_idx')
      .on(table.tagId, table.popularity.desc(), table.roleId.desc())
      .where(sql`${table.isPublic}`),
    index('role_tags_newest_idx')
      .on(table.tagId, table.createdAt.desc(), table.roleId.desc())
      .where(sql`${table.isPublic}`),
    index('role_tags_rating_idx')
      .on(table.tagId, table.ratingAverage.desc(), table.ratingCount.desc(), table.roleId.desc())
      .where(sql`${table.isPublic}`),
  ],
)

/**
 * One row holding a number that grows with every change to what the public listing shows: roles
 * added, removed or edited (visibility, adult flag, name, pictures, introduction, search text,
 * listing keys), tags added to or taken from a role, tag names. Database triggers (migration 0008)
 * bump it in the same transaction as the change, whoever makes it, so listing caches keyed by it
 * are dropped the moment the change commits. A role's chat count alone does not bump it (it changes
 * with every new chat and orders nothing); cached listings may show it up to a minute old.
 */
export const catalogueVersion = pgTable(
  'catalogue_version',
  {
    id: smallint('id').primaryKey().default(1),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (table) => [check('catalogue_version_single_row', sql`${table.id} = 1`)],
)

/** One rating (1–5) per user and role; the role keeps the sum and count. */
export const roleRatings = pgTable(
  'role_ratings',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    score: smallint('score').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.roleId, table.userId] }),
    check('role_ratings_score_range', sql`${table.score} BETWEEN 1 AND 5`),
  ],
)

export type RoleRow = typeof roles.$inferSelect
export type TagRow = typeof tags.$inferSelect

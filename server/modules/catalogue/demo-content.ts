import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import * as dicebear from '@dicebear/collection'
import { createAvatar } from '@dicebear/core'
import type { Db } from '#db/client.ts'
import { AVATAR, BANNER, type ImagesService } from '#server/modules/images/images.service.ts'
import { createUsersRepo } from '#server/modules/users/users.repo.ts'
import { type CatalogueRepo, createCatalogueRepo, type NewRole } from './catalogue.repo.ts'

/** A hand-written character from `content/characters/*.json` (see its README). */
export type SeedCharacter = {
  key: string
  name: string
  tags: string[]
  adult: boolean
  introduction: string
  scenario: string
  personality: string
  description: string
  firstMessage: string
  alternateGreetings: string[]
  exampleDialogue: string
  avatar: { style: string; seed: string }
  palette: [string, string]
}

const CONTENT_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'content')
const DEMO_RATERS = 24

/** Stable public id for a seeded character: the same key always gives the same URL. */
export function publicIdFor(key: string): string {
  const digest = createHash('sha256').update(`role:${key}`).digest()
  return digest.readBigUInt64BE(0).toString(36).padStart(13, '0').slice(0, 12)
}

/** A deterministic number in [min, max] from a key, so demo figures stay the same on every seed. */
function figure(key: string, salt: string, min: number, max: number): number {
  const n = createHash('sha256').update(`${salt}:${key}`).digest().readUInt32BE(0)
  return min + (n % (max - min + 1))
}

export function readSeedCharacters(dir = path.join(CONTENT_DIR, 'characters')): SeedCharacter[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as SeedCharacter[])
}

export function readSeedTags(file = path.join(CONTENT_DIR, 'tags.json')) {
  return JSON.parse(readFileSync(file, 'utf8')) as { slug: string; names: Record<string, string> }[]
}

function camelCase(style: string): string {
  return style.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
}

/** Drawn avatars are square; the images service keeps them at this size, with their variants. */
const DRAWN_AVATAR_SIZE = 512

/** Draws an avatar offline with DiceBear (SVG), to be rasterised by the images service. */
export function drawAvatar(style: string, seed: string, palette: [string, string]): Buffer {
  const collection = dicebear as unknown as Record<string, Parameters<typeof createAvatar>[0]>
  const chosen = collection[camelCase(style)] ?? collection.adventurer
  if (!chosen) throw new Error(`unknown avatar style ${style}`)
  const svg = createAvatar(chosen, {
    seed,
    size: DRAWN_AVATAR_SIZE,
    backgroundColor: palette.map((c) => c.replace('#', '')),
    backgroundType: ['gradientLinear'],
  }).toString()
  return Buffer.from(svg)
}

/** An abstract banner in the character's colours: gradient, soft orbs and a horizon line. */
export function drawBanner(seed: string, palette: [string, string]): Buffer {
  const [from, to] = palette
  const orbs = Array.from({ length: 7 }, (_, i) => {
    const cx = figure(seed, `orb-x-${i}`, 0, BANNER.width)
    const cy = figure(seed, `orb-y-${i}`, 0, BANNER.height)
    const r = figure(seed, `orb-r-${i}`, 40, 220)
    const opacity = figure(seed, `orb-o-${i}`, 8, 28) / 100
    return `<circle cx="${cx}" cy="${cy}" r="${r}" fill="#ffffff" fill-opacity="${opacity}"/>`
  }).join('')
  const wave = figure(seed, 'wave', 280, 420)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${BANNER.width}" height="${BANNER.height}" viewBox="0 0 ${BANNER.width} ${BANNER.height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient>
<filter id="b"><feGaussianBlur stdDeviation="24"/></filter></defs>
<rect width="100%" height="100%" fill="url(#g)"/><g filter="url(#b)">${orbs}</g>
<path d="M0 ${wave} C ${BANNER.width * 0.3} ${wave - 90}, ${BANNER.width * 0.6} ${wave + 90}, ${BANNER.width} ${wave - 30} L ${BANNER.width} ${BANNER.height} L 0 ${BANNER.height} Z" fill="#000000" fill-opacity="0.25"/>
</svg>`
  return Buffer.from(svg)
}

/**
 * Loads the tags and the hand-written characters (with drawn images and demo figures) that are not
 * in the database yet. Idempotent: keyed by each character's public id.
 */
export async function seedCatalogue(db: Db, images: ImagesService, options: { ownerEmail: string }) {
  const repo = createCatalogueRepo(db)
  const users = createUsersRepo(db)
  await repo.upsertTags(readSeedTags())
  const characters = readSeedCharacters()
  const existing = await repo.publicIdsExisting(characters.map((c) => publicIdFor(c.key)))
  const [ownerId] = await users.ensureUsers([{ username: 'taleweave', email: options.ownerEmail }])
  const missing = characters.filter((c) => !existing.has(publicIdFor(c.key)))
  const now = Date.now()
  const rows: NewRole[] = []
  for (const c of missing) {
    const avatar = await images.store(drawAvatar(c.avatar.style, c.avatar.seed, c.palette), AVATAR, { gated: c.adult })
    const banner = await images.store(drawBanner(c.key, c.palette), BANNER, { gated: c.adult })
    const chatCount = figure(c.key, 'chats', 40, 9000)
    rows.push({
      publicId: publicIdFor(c.key),
      name: c.name,
      tagSlugs: c.tags,
      isAdult: c.adult,
      creatorId: ownerId ?? null,
      avatarImageId: avatar.id,
      avatarBlurredImageId: avatar.blurredId,
      bannerImageId: banner.id,
      introduction: c.introduction,
      scenario: c.scenario,
      personality: c.personality,
      description: c.description,
      firstMessage: c.firstMessage,
      alternateGreetings: c.alternateGreetings,
      exampleDialogue: c.exampleDialogue,
      chatCount,
      popularity: chatCount + figure(c.key, 'buzz', 0, 2000),
      createdAt: new Date(now - figure(c.key, 'age', 1, 400) * 86_400_000),
    })
  }
  const inserted = await repo.insertRoles(rows)
  if (inserted > 0) await rateDemoRoles(repo, users, missing)
  return { tags: (await repo.allTags()).length, characters: inserted }
}

/** Demo readers give the new demo characters ratings, so the rating sort has real averages. */
async function rateDemoRoles(
  repo: CatalogueRepo,
  users: ReturnType<typeof createUsersRepo>,
  characters: SeedCharacter[],
) {
  const raters = await users.ensureUsers(
    Array.from({ length: DEMO_RATERS }, (_, i) => ({
      username: `demo_reader_${String(i + 1).padStart(2, '0')}`,
      email: `demo-reader-${i + 1}@taleweave.invalid`,
    })),
  )
  for (const c of characters) {
    const count = figure(c.key, 'raters', 3, raters.length)
    for (let i = 0; i < count; i++) {
      const rater = raters[(figure(c.key, 'first-rater', 0, raters.length - 1) + i) % raters.length]
      if (rater) await repo.rateRole(publicIdFor(c.key), rater, figure(c.key, `score-${i}`, 3, 5))
    }
  }
}

const SYLLABLES = [
  'ka',
  'ri',
  'mo',
  'lu',
  'sen',
  'tor',
  'vel',
  'ana',
  'dru',
  'phi',
  'zor',
  'eth',
  'mar',
  'ion',
  'sa',
  'quin',
]
const WORDS =
  'storm ember quiet river hollow crown glass winter signal orchard lantern echo ivory harbor thorn velvet'.split(' ')

/** `--synthetic N`: plain generated roles (no images) for load tests and benchmarks. */
export async function seedSyntheticRoles(db: Db, count: number, batchSize = 2000) {
  const repo = createCatalogueRepo(db)
  await repo.upsertTags(readSeedTags())
  const tagSlugs = (await repo.allTags()).map((t) => t.slug)
  const start = Date.now()
  let inserted = 0
  for (let offset = 0; offset < count; offset += batchSize) {
    const batch: NewRole[] = []
    for (let i = offset; i < Math.min(count, offset + batchSize); i++) {
      const key = `synthetic-${start}-${i}`
      const name = Array.from(
        { length: figure(key, 'len', 2, 3) },
        (_, j) => SYLLABLES[figure(key, `s${j}`, 0, SYLLABLES.length - 1)],
      ).join('')
      const words = Array.from({ length: 12 }, (_, j) => WORDS[figure(key, `w${j}`, 0, WORDS.length - 1)]).join(' ')
      batch.push({
        publicId: publicIdFor(key),
        name: name.charAt(0).toUpperCase() + name.slice(1),
        tagSlugs: [
          ...new Set(
            Array.from(
              { length: figure(key, 'tags', 1, 4) },
              (_, j) => tagSlugs[figure(key, `t${j}`, 0, tagSlugs.length - 1)] ?? 'fantasy',
            ),
          ),
        ],
        isAdult: figure(key, 'adult', 0, 19) === 0,
        introduction: `A generated character for load testing. ${words}.`,
        firstMessage: `Hello, I am ${name}.`,
        chatCount: figure(key, 'chats', 0, 50_000),
        popularity: figure(key, 'pop', 0, 100_000),
        createdAt: new Date(start - figure(key, 'age', 0, 1000 * 86_400) * 1000),
      })
    }
    inserted += await repo.insertRoles(batch)
  }
  return inserted
}

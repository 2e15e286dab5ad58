import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { featureBody, featuredListSchema, featuredOrderBody, unfeatureBody } from '#contracts/admin-featured.ts'
import {
  mergeBody,
  noteBody,
  renameBody,
  tagPolicyBody,
  tagPolicySchema,
  tagSlugParams,
  tagsPageSchema,
  tagsQuery,
} from '#contracts/admin-tags.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import { privately, signedInUser } from '#server/lib/signed-in.ts'
import type { FeaturedConsole } from './featured-console.ts'
import type { TagsConsole } from './tags-console.ts'

const tags = ['admin']
const changedSchema = z.object({ changed: z.boolean() })

/**
 * Tag moderation and featured characters in the console (ADR 059): moderators and admins, second
 * factor verified; only switching the policy for new user-made tags is an admin's. Every route is
 * gated in onRequest, before its body is read; every action takes a note and is audited.
 */
export function curationRoutes(tagsConsole: TagsConsole, featured: FeaturedConsole): FastifyPluginAsyncZod {
  return async (app) => {
    const moderator = { onRequest: app.requireStaff('moderator') }
    const admin = { onRequest: app.requireStaff('admin') }

    app.get(
      '/admin/tags',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Tags with their names, maker, character count and state; pending first',
          querystring: tagsQuery,
          response: { 200: okSchema(tagsPageSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const { page, pageSize, ...filter } = request.query
        return ok(await tagsConsole.page(filter, page, pageSize))
      },
    )

    app.post(
      '/admin/tags/:slug/rename',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'New names per locale; the slug stays. 409 CONFLICT when another tag has one of the names',
          params: tagSlugParams,
          body: renameBody,
          response: { 200: okSchema(changedSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const names = Object.fromEntries(
          Object.entries(request.body.names).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        )
        await tagsConsole.rename(request.params.slug, names, {
          actorId: signedInUser(request),
          note: request.body.note,
        })
        return ok({ changed: true })
      },
    )

    app.post(
      '/admin/tags/:slug/merge',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Characters carrying the tag carry `into` instead (once); the tag is deleted',
          params: tagSlugParams,
          body: mergeBody,
          response: { 200: okSchema(z.object({ carried: z.number().int(), moved: z.number().int() })) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok(await tagsConsole.merge(request.params.slug, request.body.into, actor))
      },
    )

    for (const action of ['hide', 'unhide', 'approve'] as const) {
      app.post(
        `/admin/tags/:slug/${action}`,
        {
          ...moderator,
          schema: {
            tags,
            summary: {
              hide: 'Hide a tag from the public (it stays on its characters)',
              unhide: 'Show a hidden tag again',
              approve: 'Approve a pending user-made tag',
            }[action],
            params: tagSlugParams,
            body: noteBody,
            response: { 200: okSchema(changedSchema) },
          },
        },
        async (request, reply) => {
          privately(reply)
          const actor = { actorId: signedInUser(request), note: request.body.note }
          return ok({ changed: await tagsConsole[action](request.params.slug, actor) })
        },
      )
    }

    app.get(
      '/admin/tags/policy',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Whether user-made tags start hidden until approved',
          response: { 200: okSchema(tagPolicySchema) },
        },
      },
      async (_request, reply) => {
        privately(reply)
        return ok(await tagsConsole.policy())
      },
    )

    app.post(
      '/admin/tags/policy',
      {
        ...admin,
        schema: {
          tags,
          summary: 'Switch whether user-made tags start hidden until approved (admins)',
          body: tagPolicyBody,
          response: { 200: okSchema(tagPolicySchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok(await tagsConsole.setPolicy(request.body.userTagsStartHidden, actor))
      },
    )

    app.get(
      '/admin/featured',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'The featured characters in their order (private or hidden ones are listed but not shown)',
          response: { 200: okSchema(featuredListSchema) },
        },
      },
      async (_request, reply) => {
        privately(reply)
        return ok({ items: await featured.list() })
      },
    )

    app.post(
      '/admin/featured',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Feature a public character, at the end of the list',
          body: featureBody,
          response: { 200: okSchema(featuredListSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok({ items: await featured.feature(request.body.roleId, actor) })
      },
    )

    app.post(
      '/admin/featured/remove',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Take a character off the featured list',
          body: unfeatureBody,
          response: { 200: okSchema(featuredListSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok({ items: await featured.unfeature(request.body.roleId, actor) })
      },
    )

    app.post(
      '/admin/featured/order',
      {
        ...moderator,
        schema: {
          tags,
          summary: 'Set the order: every featured character once',
          body: featuredOrderBody,
          response: { 200: okSchema(featuredListSchema) },
        },
      },
      async (request, reply) => {
        privately(reply)
        const actor = { actorId: signedInUser(request), note: request.body.note }
        return ok({ items: await featured.reorder(request.body.roleIds, actor) })
      },
    )
  }
}

import { z } from 'zod'
import type { Db } from '#server/db/client.ts'

/**
 * Hosted mode: an organisation's public metadata says where its backend lives
 * (`backend_url`) and whether requests go there directly with a bearer token (`direct`).
 * The flag accepts a real boolean or the text "true"; anything else is invalid (spec 000 §1).
 */
export const DirectFlagSchema = z.union([z.boolean(), z.literal('true')]).transform((value) => value === true || value === 'true')

export const OrganizationMetadataSchema = z.object({
  backend_url: z
    .string()
    .url()
    .refine((value) => /^https?:\/\//.test(value), 'backend_url must be an http(s) URL')
    .optional(),
  direct: DirectFlagSchema.optional(),
})

export type OrganizationRoute =
  | { kind: 'none' }
  | { kind: 'provisioning'; organization: string }
  | { kind: 'invalid'; organization: string; message: string }
  | { kind: 'backend'; organization: string; backendUrl: string; direct: boolean; bearerToken?: string }

export const ORGANIZATION_HEADER = 'x-lookout-organization'
export const ORGANIZATION_COOKIE = 'lookout_org'

export type OrganizationResolver = (organizationId: string) => Promise<OrganizationRoute>

/** Looks organisations up in lookout.organizations, caching each answer briefly. */
export function createOrganizationResolver(db: Db, cacheMs = 5_000): OrganizationResolver {
  const cache = new Map<string, { at: number; route: OrganizationRoute }>()
  return async (organizationId) => {
    const cached = cache.get(organizationId)
    if (cached && Date.now() - cached.at < cacheMs) return cached.route
    const { rows } = await db.query<{ public_metadata: unknown; backend_token: string | null }>(
      'SELECT public_metadata, backend_token FROM lookout.organizations WHERE id = $1',
      [organizationId],
    )
    const route = routeFor(organizationId, rows[0])
    cache.set(organizationId, { at: Date.now(), route })
    return route
  }
}

export function routeFor(
  organization: string,
  row: { public_metadata: unknown; backend_token: string | null } | undefined,
): OrganizationRoute {
  if (!row) return { kind: 'invalid', organization, message: `organization ${organization} is not known` }
  const parsed = OrganizationMetadataSchema.safeParse(row.public_metadata ?? {})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const field = issue?.path.join('.') || 'metadata'
    const message =
      field === 'direct'
        ? `organization ${organization} has an invalid "direct" flag: expected true, false or "true"`
        : `organization ${organization} has invalid metadata: ${field}: ${issue?.message ?? 'invalid'}`
    return { kind: 'invalid', organization, message }
  }
  // Without a backend_url the instance is still being created: the console shows "provisioning".
  if (!parsed.data.backend_url) return { kind: 'provisioning', organization }
  return {
    kind: 'backend',
    organization,
    backendUrl: parsed.data.backend_url.replace(/\/+$/, ''),
    direct: parsed.data.direct ?? false,
    bearerToken: row.backend_token ?? undefined,
  }
}

import { z } from 'zod'
import { dbClient, requireData } from './data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import { hasAccess, type SessionInfo } from './access.ts'
import type { RouteGuard } from './route-handle.ts'
import { getSwitchedOffNames, isFeatureDisabled, type Property } from './features.ts'
import type { SidebarView } from './navigation.ts'
import { consoleLog } from './log.server.ts'
import { sharedAcrossSessions, sharedPerSession } from './shared-data.server.ts'

/**
 * A thrown JSON Response reaches the error boundary as `isRouteErrorResponse` with its body
 * parsed, and sets the HTTP status of a document request.
 */
export function errorResponse(status: number, body: Record<string, unknown>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } })
}

/** Turns an API failure into a status-carrying Response the error boundary can show in production. */
export function toErrorResponse(error: unknown): unknown {
  if (error instanceof GatewayError) {
    return errorResponse(error.status >= 400 ? error.status : 502, { message: error.message })
  }
  return error
}

type WhoamiBody = { payload?: { user?: SessionInfo['user']; roles?: string[] | null; permissions?: SessionInfo['permissions'] | null } }

/** whoami, or a thrown redirect to sign-in on 401 (the gateway does that). */
export function requireSessionInfo(args: ApiArgs): Promise<SessionInfo> {
  return sharedPerSession(args, 'whoami', async () => {
    try {
      const { data: body } = await apiJson<WhoamiBody>(args, '/auth/whoami')
      const payload = body?.payload
      if (!payload?.user?.id) throw new GatewayError(502, 'The session information was incomplete.', 'http', body)
      return {
        user: payload.user,
        roles: Array.isArray(payload.roles) ? [...new Set(payload.roles)] : [],
        permissions: Array.isArray(payload.permissions) ? payload.permissions : [],
      }
    } catch (error) {
      throw toErrorResponse(error)
    }
  })
}

const PropertySchema = z.object({ name: z.string(), value: z.unknown() })

/**
 * Properties, or none when the API cannot answer: the console then shows every feature. An
 * entry without a name cannot switch anything and is dropped rather than failing the list.
 */
export async function getProperties(args: ApiArgs): Promise<Property[]> {
  try {
    return await sharedAcrossSessions(args, 'properties', async () => {
      const { data: body } = await apiJson<unknown>(args, '/properties')
      if (!Array.isArray(body)) return []
      return body.flatMap((entry) => {
        const property = PropertySchema.safeParse(entry)
        return property.success ? [{ name: property.data.name, value: property.data.value }] : []
      })
    })
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'properties could not be loaded; treating every feature as enabled')
    return []
  }
}

/** Custom views flagged for the sidebar; an empty list when the data API cannot answer. */
export async function getSidebarViews(args: ApiArgs): Promise<SidebarView[]> {
  try {
    return await sharedPerSession(args, 'sidebar-views', async () => {
      const views = requireData(
        await dbClient(args)
          .from('views_summary')
          .select('id,name,namespace,title,icon')
          .eq('sidebar', true)
          .order('ordinal', { ascending: true })
          .order('title', { ascending: true })
          .returns<SidebarView[]>(),
      )
      return Array.isArray(views) ? views : []
    })
  } catch (error) {
    if (error instanceof Response) throw error
    consoleLog.warn({ err: error }, 'sidebar views could not be loaded; showing none')
    return []
  }
}

export const FEATURE_DISABLED = 'feature-disabled'

/**
 * Throws the answer a page gives when it should not render: sign-in for no session, 404 for a
 * switched-off feature (its pages are meant not to exist), 403 without the permission.
 */
export async function requireAccess(args: ApiArgs, guard: RouteGuard): Promise<SessionInfo> {
  const [session, properties] = await Promise.all([requireSessionInfo(args), getProperties(args)])
  if (guard.feature && isFeatureDisabled(guard.feature, getSwitchedOffNames(properties))) {
    throw errorResponse(404, { reason: FEATURE_DISABLED, feature: guard.feature })
  }
  if (guard.resource && !hasAccess(session, guard.resource, guard.access ?? 'read')) {
    throw errorResponse(403, { message: 'You do not have permission to access this page' })
  }
  return session
}

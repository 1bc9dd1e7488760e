import type { ApiArgs } from '#app/lib/gateway.server.ts'
import { isViewerOnly, type SessionInfo } from '#app/lib/access.ts'
import type { RouteGuard } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'

/**
 * The guard of the settings pages built here. The role table lets viewers and guests read most
 * areas, yet the settings group is hidden from them (spec 002 §2 "Sidebar"); a page reached by
 * typing its address must agree with the menu, so a viewer-only session gets the 403 page too.
 */
export async function requireSettingsAccess(args: ApiArgs, guard: RouteGuard): Promise<SessionInfo> {
  const session = await requireAccess(args, guard)
  if (isViewerOnly(session)) throw errorResponse(403, { message: 'You do not have permission to access this page' })
  return session
}

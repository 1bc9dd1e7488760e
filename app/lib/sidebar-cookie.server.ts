import { createCookie } from '@remix-run/node'

/**
 * Whether the sidebar is collapsed. A plain UI preference, so the cookie is unsigned; it is
 * still HttpOnly because only the server reads it (the page renders from it, with or
 * without JavaScript).
 */
const sidebarCookie = createCookie('lookout_sidebar', {
  path: '/',
  httpOnly: true,
  sameSite: 'lax',
  maxAge: 60 * 60 * 24 * 365,
})

export async function getSidebarCollapsed(request: Request): Promise<boolean> {
  try {
    return (await sidebarCookie.parse(request.headers.get('cookie'))) === 'collapsed'
  } catch {
    return false
  }
}

export function serializeSidebarCollapsed(request: Request, collapsed: boolean): Promise<string> {
  return sidebarCookie.serialize(collapsed ? 'collapsed' : 'expanded', {
    secure: new URL(request.url).protocol === 'https:',
  })
}

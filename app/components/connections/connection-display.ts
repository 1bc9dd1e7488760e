import { getConnectionType, type ConnectionFamily } from '#contract/connections/connection-types.ts'
import type { IconName } from '#app/components/ui/icon-names.ts'

/**
 * How the connection screens name and draw a type: the family headings of the type grid, one icon
 * per family (the sprite holds no vendor logos), and a connection URL with its secrets masked.
 * Zod-free: the list and the forms render from it (decision 016).
 */

export const CONNECTION_FAMILY_LABELS: Record<ConnectionFamily, string> = {
  database: 'Databases',
  cloud: 'Cloud',
  notification: 'Notifications',
  git: 'Git',
  ai: 'AI',
  http: 'HTTP and monitoring',
  other: 'Other',
}

export const CONNECTION_FAMILY_ICONS: Record<ConnectionFamily, IconName> = {
  database: 'Table2',
  cloud: 'Boxes',
  notification: 'Bell',
  git: 'Workflow',
  ai: 'Bot',
  http: 'Activity',
  other: 'Settings',
}

/** The display name and icon of a stored type; a type without a form keeps its own name. */
export function describeConnectionType(type: string): { label: string; icon: IconName } {
  const definition = getConnectionType(type)
  return definition ? { label: definition.displayName, icon: CONNECTION_FAMILY_ICONS[definition.family] } : { label: type, icon: 'Settings' }
}

const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*)@/i
const SECRET_QUERY = /([?&](?:token|key|apikey|api_key|password|secret|access_token)=)[^&#]*/gi

/**
 * A URL as a list may show it: the password of its user info (`user:***@`, or `***@` when the
 * user info is a token, as Shoutrrr URLs write it) and secret-named query parameters become
 * `***`. Placeholders such as `$(secret:name/key)` name a secret without holding it and stay.
 */
export function maskConnectionUrl(url: string | null | undefined): string {
  if (!url) return ''
  const masked = url.replace(USERINFO, (_match, scheme: string, userinfo: string) => {
    if (userinfo.startsWith('$(') && !userinfo.includes(':')) return `${scheme}${userinfo}@`
    const colon = userinfo.indexOf(':')
    return colon < 0 ? `${scheme}***@` : `${scheme}${userinfo.slice(0, colon)}:***@`
  })
  return masked.replace(SECRET_QUERY, '$1***')
}

import { hasAccess, isViewerOnly, type Resource, type SessionInfo } from './access.ts'
import { isFeatureDisabled, type Feature } from './features.ts'

/**
 * The sidebar as data (spec 000 §2 "Sidebar", 002 §2 "Sidebar"). Icons are named here and
 * drawn by the component, so this module stays pure and testable.
 */

/**
 * The Help menu's one item (spec 002 §2, "A help menu at top right has a single item, a link
 * labelled Docs to the provider's documentation site"): the platform's documentation, which
 * covers the contract Lookout serves (the kubeconfig dialog links the same site).
 */
export const DOCS_URL = 'https://docs.flanksource.com/'

export type NavIcon =
  | 'dashboard'
  | 'health'
  | 'incidents'
  | 'catalog'
  | 'logs'
  | 'playbooks'
  | 'applications'
  | 'view'
  | 'settings'

export type NavEntry = {
  /** Stable key, used for `data-testid="nav-<name>"`. */
  name: string
  label: string
  href: string
  icon: NavIcon
  feature?: Feature
  resource?: Resource
}

export const MAIN_NAV: readonly NavEntry[] = [
  { name: 'dashboard', label: 'Dashboard', href: '/topology', icon: 'dashboard', feature: 'topology', resource: 'topologies' },
  { name: 'health', label: 'Health', href: '/health', icon: 'health', feature: 'health', resource: 'canaries' },
  { name: 'incidents', label: 'Incidents', href: '/incidents', icon: 'incidents', feature: 'incidents', resource: 'incident' },
  { name: 'catalog', label: 'Catalog', href: '/catalog', icon: 'catalog', feature: 'config', resource: 'database' },
  { name: 'logs', label: 'Logs', href: '/logs', icon: 'logs', feature: 'logs', resource: 'logging_backends' },
  { name: 'playbooks', label: 'Playbooks', href: '/playbooks', icon: 'playbooks', feature: 'playbooks', resource: 'playbooks' },
  { name: 'applications', label: 'Applications', href: '/applications', icon: 'applications', feature: 'applications', resource: 'database' },
]

/** Listed in any order here; the sidebar sorts them by label. */
export const SETTINGS_NAV: readonly NavEntry[] = [
  { name: 'connections', label: 'Connections', href: '/settings/connections', icon: 'settings', feature: 'settings.connections', resource: 'connections' },
  { name: 'permissions', label: 'Permissions', href: '/settings/permissions', icon: 'settings', feature: 'settings.permissions', resource: 'permissions' },
  { name: 'users', label: 'Users', href: '/settings/users', icon: 'settings', feature: 'settings.users', resource: 'identities' },
  { name: 'jobs', label: 'Jobs History', href: '/settings/jobs', icon: 'settings', feature: 'settings.job_history', resource: 'database' },
  { name: 'feature-flags', label: 'Feature Flags', href: '/settings/feature-flags', icon: 'settings', feature: 'settings.feature_flags', resource: 'feature_flags' },
  { name: 'event-queue', label: 'Event Queue', href: '/settings/event-queue-status', icon: 'settings', feature: 'settings.event_queue_status', resource: 'database' },
  { name: 'agents', label: 'Agents', href: '/settings/agents', icon: 'settings', feature: 'agents', resource: 'agents' },
  { name: 'tokens', label: 'Tokens', href: '/settings/tokens', icon: 'settings', feature: 'settings.tokens', resource: 'auth' },
  { name: 'integrations', label: 'Integrations', href: '/settings/integrations', icon: 'settings', feature: 'settings.integrations', resource: 'integrations' },
  { name: 'views', label: 'Views', href: '/settings/views', icon: 'settings', feature: 'views', resource: 'views' },
  { name: 'log-backends', label: 'Log Backends', href: '/settings/log-backends', icon: 'settings', feature: 'settings.logging_backends', resource: 'logging_backends' },
  { name: 'canaries', label: 'Canaries', href: '/settings/canaries', icon: 'settings', feature: 'settings.health', resource: 'canaries' },
  { name: 'topologies', label: 'Topologies', href: '/settings/topologies', icon: 'settings', feature: 'settings.topology', resource: 'topologies' },
  { name: 'teams', label: 'Teams', href: '/settings/teams', icon: 'settings', feature: 'settings.teams', resource: 'database' },
  { name: 'incident-rules', label: 'Incident Rules', href: '/settings/incident_rules', icon: 'settings', feature: 'settings.rules', resource: 'incident' },
  { name: 'notifications', label: 'Notifications', href: '/notifications', icon: 'settings', feature: 'settings.notifications', resource: 'notifications' },
]

/**
 * Generic resource tables served by /settings/$table and /settings/$table/$id. Config
 * scrapers are left out on purpose: they live under /catalog/scrapers.
 */
export const SETTINGS_TABLES = {
  canaries: { label: 'Canaries', feature: 'settings.health', resource: 'canaries' },
  topologies: { label: 'Topologies', feature: 'settings.topology', resource: 'topologies' },
  teams: { label: 'Teams', feature: 'settings.teams', resource: 'database' },
  incident_rules: { label: 'Incident Rules', feature: 'settings.rules', resource: 'incident' },
} as const satisfies Record<string, { label: string; feature: Feature; resource: Resource }>

export type SettingsTable = keyof typeof SETTINGS_TABLES

export function getSettingsTable(name: string | undefined): (typeof SETTINGS_TABLES)[SettingsTable] | null {
  if (!name || !Object.hasOwn(SETTINGS_TABLES, name)) return null
  return SETTINGS_TABLES[name as SettingsTable]
}

export type SidebarView = { id: string; name: string; namespace?: string | null; title?: string | null; icon?: string | null }

export type Sidebar = { main: NavEntry[]; views: NavEntry[]; settings: NavEntry[] }

/** What components read of the console layout's loader data (route id `routes/_console`). */
export type ConsoleLayoutData = { sidebar: Sidebar }

function isVisible(entry: NavEntry, session: Pick<SessionInfo, 'roles' | 'permissions'>, switchedOff: ReadonlySet<string>): boolean {
  if (entry.feature && isFeatureDisabled(entry.feature, switchedOff)) return false
  if (entry.resource && !hasAccess(session, entry.resource, 'read')) return false
  return true
}

/** The sidebar this user gets: disabled features and unreadable resources are left out. */
export function buildSidebar(input: {
  session: Pick<SessionInfo, 'roles' | 'permissions'>
  switchedOff: ReadonlySet<string>
  views: readonly SidebarView[]
}): Sidebar {
  const { session, switchedOff } = input
  const main = MAIN_NAV.filter((entry) => isVisible(entry, session, switchedOff))
  const viewsEnabled = !isFeatureDisabled('views', switchedOff) && hasAccess(session, 'views', 'read')
  const views: NavEntry[] = viewsEnabled
    ? input.views
        .filter((view) => typeof view?.id === 'string' && view.id)
        .map((view) => ({
          name: `view-${view.id}`,
          label: view.title?.trim() || view.name,
          href: `/views/${encodeURIComponent(view.id)}`,
          icon: 'view' as const,
          feature: 'views' as const,
        }))
    : []
  const settings = isViewerOnly(session)
    ? []
    : SETTINGS_NAV.filter((entry) => isVisible(entry, session, switchedOff)).sort((a, b) => a.label.localeCompare(b.label))
  return { main, views, settings }
}

/**
 * Feature switches. A property `<feature>.disable` whose value is `true` turns a feature off,
 * and a few settings pages inherit the switch of the area they belong to (spec 000 §9,
 * 002 §4). Pure on purpose: the sidebar, the route guards and the tests share it.
 */

export const FEATURES = [
  'topology',
  'health',
  'incidents',
  'config',
  'logs',
  'playbooks',
  'applications',
  'views',
  'agents',
  'settings.connections',
  'settings.users',
  'settings.teams',
  'settings.rules',
  'settings.config_scraper',
  'settings.topology',
  'settings.health',
  'settings.job_history',
  'settings.feature_flags',
  'settings.logging_backends',
  'settings.event_queue_status',
  'settings.integrations',
  'settings.notifications',
  'settings.permissions',
  'settings.tokens',
] as const

export type Feature = (typeof FEATURES)[number]

/** Child → parent. Only these inherit; every other feature stands alone. */
export const FEATURE_PARENTS: Readonly<Partial<Record<Feature, Feature>>> = {
  'settings.config_scraper': 'config',
  'settings.topology': 'topology',
  'settings.health': 'health',
  'settings.job_history': 'health',
}

export type Property = { name: string; value: unknown }

/** A property `<feature>.disable` set to `true` switches the feature (and its children) off. */
export const DISABLE_SUFFIX = '.disable'

/**
 * Property names as the platform uses them: dotted words (`incidents.disable`,
 * `access_token.default_expiry`). `/` and `-` are escaped because the browser compiles the
 * native `pattern` with the `v` flag, where they must be.
 */
export const PROPERTY_NAME_PATTERN = new RegExp(String.raw`^[A-Za-z0-9_][A-Za-z0-9_.:\/\-]*$`)

export function isFeature(value: unknown): value is Feature {
  return typeof value === 'string' && (FEATURES as readonly string[]).includes(value)
}

function isTrue(value: unknown): boolean {
  if (value === true) return true
  return typeof value === 'string' && value.trim().toLowerCase() === 'true'
}

/**
 * The names switched off by their own property, whatever they are (unknown names are kept so
 * a flag for a feature this console does not know yet still reads as set).
 */
export function getSwitchedOffNames(properties: readonly Property[]): Set<string> {
  const names = new Set<string>()
  for (const property of properties) {
    if (typeof property?.name !== 'string' || !property.name.endsWith(DISABLE_SUFFIX)) continue
    const name = property.name.slice(0, -DISABLE_SUFFIX.length)
    if (!name) continue
    // A later duplicate wins, so a database row can switch a process-level flag back on.
    if (isTrue(property.value)) names.add(name)
    else names.delete(name)
  }
  return names
}

/** True when the feature's own flag is set or any ancestor's is. */
export function isFeatureDisabled(feature: Feature, switchedOff: ReadonlySet<string>): boolean {
  const seen = new Set<Feature>()
  let current: Feature | undefined = feature
  while (current && !seen.has(current)) {
    if (switchedOff.has(current)) return true
    seen.add(current)
    current = FEATURE_PARENTS[current]
  }
  return false
}

/** Every known feature that is off, directly or through its parent. */
export function getDisabledFeatures(properties: readonly Property[]): Feature[] {
  const switchedOff = getSwitchedOffNames(properties)
  return FEATURES.filter((feature) => isFeatureDisabled(feature, switchedOff))
}

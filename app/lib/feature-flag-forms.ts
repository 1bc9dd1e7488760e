import { z } from 'zod'
import { FEATURE_PARENTS, FEATURES, getSwitchedOffNames, isFeatureDisabled, type Feature, type Property } from './features.ts'

/**
 * The feature flags screen (spec 000 §9, 002 §3/§4): properties are `{name, value}` pairs, and a
 * `<feature>.disable` set to `true` switches a feature off together with its children. What the
 * screen's forms accept and what its feature list shows, pure so the route, its component and
 * the tests share one definition.
 */

export const DISABLE_SUFFIX = '.disable'

/**
 * Property names as the platform uses them: dotted words (`incidents.disable`,
 * `access_token.default_expiry`). `/` and `-` are escaped because the browser compiles the
 * native `pattern` with the `v` flag, where they must be.
 */
export const PROPERTY_NAME_PATTERN = new RegExp(String.raw`^[A-Za-z0-9_][A-Za-z0-9_.:\/\-]*$`)

const propertyName = z
  .string({ required_error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(200, 'Name is too long (200 characters at most)')
  // A pipe, so a blank name gets one message, not two.
  .pipe(z.string().regex(PROPERTY_NAME_PATTERN, 'Use letters, digits and . _ - : / only, without spaces'))

const propertyValue = z
  .string({ required_error: 'Value is required' })
  .trim()
  .min(1, 'Value is required')
  .max(2000, 'Value is too long (2000 characters at most)')

export const CreatePropertySchema = z.object({ intent: z.literal('create'), name: propertyName, value: propertyValue })

/** The name is the key: editing changes the value only (rename = delete and add). */
export const UpdatePropertySchema = z.object({ intent: z.literal('update'), name: propertyName, value: propertyValue })

export const DeletePropertySchema = z.object({ intent: z.literal('delete'), name: propertyName })

export const ToggleFeatureSchema = z.object({
  intent: z.literal('toggle'),
  feature: z.enum(FEATURES, { errorMap: () => ({ message: 'Unknown feature' }) }),
  disabled: z.enum(['true', 'false'], { errorMap: () => ({ message: 'Choose enable or disable' }) }).transform((value) => value === 'true'),
})

/** The page's four forms, told apart by a hidden `intent`. */
export const FeatureFlagsActionSchema = z.discriminatedUnion('intent', [CreatePropertySchema, UpdatePropertySchema, DeletePropertySchema, ToggleFeatureSchema])

/** URL state: which dialog is open and for which property; anything else falls back to none. */
export const FeatureFlagsSearchSchema = z.object({
  dialog: z.enum(['add', 'edit', 'delete']).optional().catch(undefined),
  name: z.string().trim().min(1).max(200).optional().catch(undefined),
})

export type FeatureFlagsSearch = z.infer<typeof FeatureFlagsSearchSchema>

export function parseFeatureFlagsSearch(search: URLSearchParams): FeatureFlagsSearch {
  return FeatureFlagsSearchSchema.parse({ dialog: search.get('dialog') ?? undefined, name: search.get('name') ?? undefined })
}

/** A property as the screen lists it: `source` is `db` (editable here) or the server's own (`local`). */
export type PropertyRow = { name: string; value: string; source: string; description: string }

export function isEditable(row: Pick<PropertyRow, 'source'>): boolean {
  return row.source === '' || row.source === 'db'
}

/**
 * One line of the feature list. `state`: `enabled`; `disabled` by its own flag; `inherited`
 * when only an ancestor's flag switches it off. `isLocked` when the flag comes from the server's
 * process (a database row could not override it, so the screen offers no toggle).
 */
export type FeatureRow = {
  feature: Feature
  flag: string
  parent: Feature | null
  depth: number
  isOwnFlagSet: boolean
  state: 'enabled' | 'disabled' | 'inherited'
  disabledBy: Feature | null
  isLocked: boolean
}

function ancestorsOf(feature: Feature): Feature[] {
  const chain: Feature[] = []
  let current = FEATURE_PARENTS[feature]
  while (current && !chain.includes(current)) {
    chain.push(current)
    current = FEATURE_PARENTS[current]
  }
  return chain
}

/** Every known feature, each parent followed by its children, with its switch state. */
export function buildFeatureRows(properties: readonly PropertyRow[]): FeatureRow[] {
  const switchedOff = getSwitchedOffNames(properties as readonly Property[])
  const locked = new Set(properties.filter((row) => !isEditable(row)).map((row) => row.name))
  const rowOf = (feature: Feature): FeatureRow => {
    const ancestors = ancestorsOf(feature)
    const isOwnFlagSet = switchedOff.has(feature)
    const disabledBy = ancestors.find((ancestor) => switchedOff.has(ancestor)) ?? null
    return {
      feature,
      flag: `${feature}${DISABLE_SUFFIX}`,
      parent: FEATURE_PARENTS[feature] ?? null,
      depth: ancestors.length,
      isOwnFlagSet,
      state: isOwnFlagSet ? 'disabled' : isFeatureDisabled(feature, switchedOff) ? 'inherited' : 'enabled',
      disabledBy,
      isLocked: locked.has(`${feature}${DISABLE_SUFFIX}`),
    }
  }
  const rows: FeatureRow[] = []
  const visit = (feature: Feature) => {
    rows.push(rowOf(feature))
    for (const child of FEATURES.filter((candidate) => FEATURE_PARENTS[candidate] === feature)) visit(child)
  }
  for (const feature of FEATURES) if (!FEATURE_PARENTS[feature]) visit(feature)
  return rows
}

import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { CreatePropertySchema } from './feature-flag-forms.ts'
import { DISABLE_SUFFIX, FEATURE_PARENTS, FEATURES, getSwitchedOffNames, isFeatureDisabled, PROPERTY_NAME_PATTERN, type Feature, type Property } from './features.ts'

/**
 * The feature flags screen as the browser renders it (spec 000 §9, 002 §3/§4; decision 016): the
 * property dialog's native constraints and the feature list, without zod. The schemas that check
 * every post are in `feature-flag-forms.ts`, which only the action imports.
 */

/** The property dialog (add and edit alike): `getZodConstraint` of its schemas. */
export const PropertyShape = formShape<Omit<z.input<typeof CreatePropertySchema>, 'intent'> & { intent: 'create' | 'update' }>({
  intent: { required: true },
  name: { required: true, pattern: `^(?=.*(?:${PROPERTY_NAME_PATTERN.source})).*$` },
  value: { required: true, minLength: 1, maxLength: 2000 },
})

const DIALOGS = ['add', 'edit', 'delete'] as const
export type FeatureFlagsSearch = { dialog?: (typeof DIALOGS)[number]; name?: string }

/**
 * URL state: which dialog is open and for which property; anything else falls back to none.
 * Read without zod: the page reads it in the browser, where zod is not shipped (decision 016).
 */
export function parseFeatureFlagsSearch(search: URLSearchParams): FeatureFlagsSearch {
  const dialog = DIALOGS.find((value) => value === search.get('dialog'))
  const name = search.get('name')?.trim()
  return { dialog, name: name && name.length <= 200 ? name : undefined }
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

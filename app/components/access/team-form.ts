/**
 * The team spec form (spec 002 §2 "Resource editor"): name, icon and the JSON spec. Pure, so
 * the create dialog and the Spec tab read a post the same way.
 */
export type TeamFormValues = { name: string; icon: string; spec: string }
export type TeamRowInput = { icon: string; spec: Record<string, unknown> }

type FieldSource = { get(name: string): unknown }

export const DEFAULT_TEAM_ICON = 'group'

export function readTeamForm(
  source: FieldSource,
  options: { requireName: boolean },
): { values: TeamFormValues; errors: Record<string, string>; row?: TeamRowInput } {
  const read = (name: string) => {
    const value = source.get(name)
    return typeof value === 'string' ? value : ''
  }
  const values: TeamFormValues = { name: read('name').trim(), icon: read('icon').trim(), spec: read('spec') }
  const errors: Record<string, string> = {}
  if (options.requireName) {
    if (!values.name) errors.name = 'This field is required'
    else if (values.name.length > 255) errors.name = 'Name must be at most 255 characters'
  }
  let spec: Record<string, unknown> = {}
  if (values.spec.trim()) {
    try {
      const parsed: unknown = JSON.parse(values.spec)
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) spec = parsed as Record<string, unknown>
      else errors.spec = 'The spec must be a JSON object'
    } catch {
      errors.spec = 'The spec is not valid JSON'
    }
  }
  if (Object.keys(errors).length > 0) return { values, errors }
  return { values, errors, row: { icon: values.icon || DEFAULT_TEAM_ICON, spec } }
}

/** Spec 002 §8: '{names} added to the team successfully'. */
export function membersAddedMessage(names: readonly string[]): string {
  return `${names.join(', ')} added to the team successfully`
}

/** Spec 002 §8: '{name} removed from team successfully'. */
export function memberRemovedMessage(name: string): string {
  return `${name} removed from team successfully`
}

import { z } from 'zod'

/**
 * The team spec form (spec 002 §2 "Resource editor"): name, icon and the JSON spec. Pure, so
 * the create dialog and the Spec tab read a post the same way.
 */
export type TeamFormValues = { name: string; icon: string; spec: string }
export type TeamRowInput = { icon: string; spec: Record<string, unknown> }

type FieldSource = { get(name: string): unknown }

export const DEFAULT_TEAM_ICON = 'group'

/** The spec textarea: empty means `{}`, anything else must be a JSON object. */
const SpecJsonSchema = z
  .string()
  .optional()
  .transform((text, ctx): Record<string, unknown> => {
    if (!text?.trim()) return {}
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'The spec is not valid JSON' })
      return z.NEVER
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'The spec must be a JSON object' })
    return z.NEVER
  })

const teamFields = {
  icon: z
    .string()
    .trim()
    .optional()
    .transform((icon) => icon || DEFAULT_TEAM_ICON),
  spec: SpecJsonSchema,
}

/** The Spec tab: icon and spec; the name is not edited there. */
export const TeamSpecSchema = z.object(teamFields)

/** The "Add Team" dialog: a name (the database keeps live names unique), icon and spec. */
export const CreateTeamSchema = z.object({
  name: z.string({ required_error: 'This field is required' }).trim().min(1, 'This field is required').max(255, 'Name must be at most 255 characters'),
  ...teamFields,
})

/** Reads a post through the schemas above, keeping the typed values for re-rendering the form. */
export function readTeamForm(
  source: FieldSource,
  options: { requireName: boolean },
): { values: TeamFormValues; errors: Record<string, string>; row?: TeamRowInput } {
  const read = (name: string) => {
    const value = source.get(name)
    return typeof value === 'string' ? value : ''
  }
  const values: TeamFormValues = { name: read('name').trim(), icon: read('icon').trim(), spec: read('spec') }
  const parsed = (options.requireName ? CreateTeamSchema : TeamSpecSchema).safeParse({ name: values.name || undefined, icon: values.icon, spec: values.spec })
  if (!parsed.success) {
    const errors: Record<string, string> = {}
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? 'form')
      errors[key] ??= issue.message
    }
    return { values, errors }
  }
  return { values, errors: {}, row: { icon: parsed.data.icon, spec: parsed.data.spec } }
}

/** Spec 002 §8: '{names} added to the team successfully'. */
export function membersAddedMessage(names: readonly string[]): string {
  return `${names.join(', ')} added to the team successfully`
}

/** Spec 002 §8: '{name} removed from team successfully'. */
export function memberRemovedMessage(name: string): string {
  return `${name} removed from team successfully`
}

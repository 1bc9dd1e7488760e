import { z } from 'zod'
import { isUuid } from '#contract/uuid.ts'

/**
 * The team forms (spec 002 §2 "Resource editor"): the "Add Team" dialog, and the detail page's
 * Spec tab, Add Members dialog, member removal and delete, told apart by a hidden `intent`. One
 * schema per form; the routes parse posts with them and the browser gets their native
 * constraints and runs the same checks.
 */

import { DEFAULT_TEAM_ICON } from './team-vocabulary.ts'

const REQUIRED = 'This field is required'

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
    .max(255, 'Icon must be at most 255 characters')
    .optional()
    .transform((icon) => icon || DEFAULT_TEAM_ICON),
  spec: SpecJsonSchema,
}

/** The "Add Team" dialog: a name (the database keeps live names unique), icon and spec. */
export const CreateTeamSchema = z.object({
  name: z.string({ required_error: REQUIRED }).trim().min(1, REQUIRED).max(255, 'Name must be at most 255 characters'),
  ...teamFields,
})

const TeamId = (message: string) => z.string({ required_error: message }).refine(isUuid, message)

/** The Spec tab: icon and spec; the name stays as it is once the team exists. */
export const TeamSpecSchema = z.object({ intent: z.literal('save'), ...teamFields })

export const DeleteTeamSchema = z.object({ intent: z.literal('delete') })

export const NO_PERSON_CHOSEN = 'Choose at least one person to add.'

/** The Add Members dialog: several people at once, as a checkbox group of person ids. */
export const AddMembersSchema = z.object({
  intent: z.literal('add-members'),
  person_id: z
    .array(TeamId(NO_PERSON_CHOSEN), { required_error: NO_PERSON_CHOSEN })
    .min(1, NO_PERSON_CHOSEN)
    .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]),
})

/** A member row's remove button; the name only words the toast. */
export const RemoveMemberSchema = z.object({
  intent: z.literal('remove-member'),
  person_id: TeamId('No member was chosen.'),
  name: z.string().trim().max(255).optional(),
})

export const TeamActionSchema = z.discriminatedUnion('intent', [TeamSpecSchema, DeleteTeamSchema, AddMembersSchema, RemoveMemberSchema], {
  errorMap: () => ({ message: 'Unknown request.' }),
})
export type TeamAction = z.infer<typeof TeamActionSchema>
export type TeamIntent = TeamAction['intent']

/** Spec 002 §8: '{names} added to the team successfully'. */
export function membersAddedMessage(names: readonly string[]): string {
  return `${names.join(', ')} added to the team successfully`
}

/** Spec 002 §8: '{name} removed from team successfully'. */
export function memberRemovedMessage(name: string): string {
  return `${name} removed from team successfully`
}

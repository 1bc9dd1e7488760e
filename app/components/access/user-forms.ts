import { z } from 'zod'
import { ROLE_SUBJECTS } from '#app/lib/role-subjects.ts'
import { UUID_PATTERN } from '#contract/uuid.ts'

/** The users screen's three forms (spec 000 §6, spec 002 §2), told apart by a hidden `intent`. */
const roleField = z.enum(ROLE_SUBJECTS, { errorMap: () => ({ message: 'Role is required' }) })
const userId = z.string({ required_error: 'No user was chosen.' }).regex(UUID_PATTERN, 'No user was chosen.')

/** An invitation names the person and the role they start with. */
export const InviteSchema = z.object({
  intent: z.literal('invite'),
  firstName: z.string().trim().max(100, 'At most 100 characters').default(''),
  lastName: z.string().trim().max(100, 'At most 100 characters').default(''),
  email: z.string({ required_error: 'Email is required' }).trim().min(1, 'Email is required').email('Enter a valid email address'),
  role: roleField,
})

export const SetRoleSchema = z.object({ intent: z.literal('role'), id: userId, name: z.string().default('The user'), role: roleField })

export const DeleteUserSchema = z.object({ intent: z.literal('delete'), id: userId, name: z.string().default('The user') })

export const UsersActionSchema = z.discriminatedUnion('intent', [InviteSchema, SetRoleSchema, DeleteUserSchema])

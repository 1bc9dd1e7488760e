import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import { ROLE_SUBJECTS } from '#app/lib/role-subjects.ts'
import type { CreateTokenSchema } from '#app/lib/token-scopes.ts'
import type { AddMembersSchema, CreateTeamSchema, TeamSpecSchema } from './team-form.ts'
import type { InviteSchema } from './user-forms.ts'

/**
 * The access screens' forms as the browser renders them (decision 016): their native
 * constraints, without zod. The schemas that check every post (team-form.ts, user-forms.ts,
 * token-scopes.ts) are imported by the actions only; tests/app/form-shapes.test.ts checks these
 * equal `getZodConstraint` of them.
 */

const intent = { required: true }

export const CreateTeamShape = formShape<z.input<typeof CreateTeamSchema>>({
  name: { required: true, minLength: 1, maxLength: 255 },
  icon: { required: false, maxLength: 255 },
  spec: { required: false },
})

export const TeamSpecShape = formShape<z.input<typeof TeamSpecSchema>>({ intent, icon: { required: false, maxLength: 255 }, spec: { required: false } })

export const AddMembersShape = formShape<z.input<typeof AddMembersSchema>>({ intent, person_id: { required: true, multiple: true }, 'person_id[]': { required: true } })

export const InviteShape = formShape<z.input<typeof InviteSchema>>({
  intent,
  firstName: { required: false, maxLength: 100 },
  lastName: { required: false, maxLength: 100 },
  email: { required: true, minLength: 1 },
  role: { required: true, pattern: ROLE_SUBJECTS.join('|') },
})

export const CreateTokenShape = formShape<z.input<typeof CreateTokenSchema>>({
  intent,
  name: { required: true, minLength: 1 },
  expiry: { required: false, pattern: 'never' },
  scope: { required: false, multiple: true },
  'scope[]': { required: true },
})

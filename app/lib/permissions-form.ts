import { z } from 'zod'
import { UUID_PATTERN } from '#contract/uuid.ts'
import { actionRefusal, GLOBAL_OBJECTS, PERMISSION_PAGE_SIZES, PERMISSION_SORT_COLUMNS, REQUIRED_MESSAGE, ROLE_SUBJECTS } from './permissions-vocabulary.ts'

/**
 * The permissions screen's schemas (spec 002 §2, §5, §6): one for the page's three forms (add,
 * edit, delete) told apart by a hidden `intent`, and the list's URL. Only the route's action and
 * loader import them; the page renders from `permissions-form-shapes.ts` (decision 016).
 */

const required = { required_error: REQUIRED_MESSAGE, invalid_type_error: REQUIRED_MESSAGE }

const pickedId = z.string(required).regex(UUID_PATTERN, 'Choose one from the list')

const SubjectSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('team'), id: pickedId }),
    z.object({ kind: z.literal('person'), id: pickedId }),
    z.object({ kind: z.literal('notification'), id: pickedId }),
    z.object({
      kind: z.literal('role'),
      id: z.enum(ROLE_SUBJECTS, { errorMap: (issue, ctx) => ({ message: issue.code === 'invalid_enum_value' ? `Unknown role ${String(ctx.data)}` : REQUIRED_MESSAGE }) }),
    }),
    z.object({ kind: z.literal('playbook'), id: pickedId }),
  ],
  // No kind chosen yet: the union has nothing to tell apart.
  { errorMap: () => ({ message: REQUIRED_MESSAGE }) },
)

const ResourceSchema = z.discriminatedUnion(
  'kind',
  [
    z.object({
      kind: z.literal('global'),
      id: z.enum(GLOBAL_OBJECTS, { errorMap: (issue, ctx) => ({ message: issue.code === 'invalid_enum_value' ? `Unknown object ${String(ctx.data)}` : REQUIRED_MESSAGE }) }),
    }),
    z.object({ kind: z.literal('config'), id: pickedId }),
    z.object({ kind: z.literal('component'), id: pickedId }),
    z.object({ kind: z.literal('canary'), id: pickedId }),
    z.object({ kind: z.literal('playbook'), id: pickedId }),
    z.object({ kind: z.literal('connection'), id: pickedId }),
  ],
  { errorMap: () => ({ message: REQUIRED_MESSAGE }) },
)

const permissionId = z.string({ required_error: 'No permission was chosen.' }).regex(UUID_PATTERN, 'No permission was chosen.')

const permissionFields = {
  subject: SubjectSchema,
  resource: ResourceSchema,
  action: z.string(required).max(200),
  deny: z.boolean().default(false),
  description: z.string().trim().max(1000, 'Description must be at most 1000 characters').optional(),
}

export const AddPermissionSchema = z.object({ intent: z.literal('add'), ...permissionFields })
export const EditPermissionSchema = z.object({ intent: z.literal('edit'), id: permissionId, ...permissionFields })
export const DeletePermissionSchema = z.object({ intent: z.literal('delete'), id: permissionId })

type WithIntent = { intent: 'add' | 'edit' | 'delete' } & Partial<Pick<z.output<typeof AddPermissionSchema>, 'resource' | 'action'>>

function checkActionFits(value: WithIntent, ctx: z.RefinementCtx): void {
  if (value.intent === 'delete' || !value.resource || value.action === undefined) return
  const refusal = actionRefusal(value.resource, value.action)
  if (refusal) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['action'], message: refusal })
}

/** The dialog's form: add, or edit with the permission's id. */
export const PermissionFormSchema = z.discriminatedUnion('intent', [AddPermissionSchema, EditPermissionSchema]).superRefine(checkActionFits)

/** Everything the permissions page posts: the dialog's two intents and the delete confirmation. */
export const PermissionActionSchema = z
  .discriminatedUnion('intent', [AddPermissionSchema, EditPermissionSchema, DeletePermissionSchema])
  .superRefine(checkActionFits)

const PermissionsSearchSchema = z.object({
  page: z.string().regex(/^\d{1,7}$/).transform(Number).pipe(z.number().min(1)).catch(1),
  pageSize: z.coerce
    .number()
    .refine((value) => (PERMISSION_PAGE_SIZES as readonly number[]).includes(value))
    .catch(PERMISSION_PAGE_SIZES[0]),
  sortBy: z.enum(PERMISSION_SORT_COLUMNS).nullable().catch(null),
  sortDesc: z
    .string()
    .nullable()
    .transform((value) => value === 'true'),
  dialog: z.enum(['permission', 'delete']).nullable().catch(null),
  id: z.string().regex(UUID_PATTERN).transform((value) => value.toLowerCase()).nullable().catch(null),
})

export type PermissionsSearch = z.output<typeof PermissionsSearchSchema>

export function parsePermissionsSearch(params: URLSearchParams): PermissionsSearch {
  const raw = Object.fromEntries(Object.keys(PermissionsSearchSchema.shape).map((key) => [key, params.get(key)]))
  return PermissionsSearchSchema.parse(raw)
}

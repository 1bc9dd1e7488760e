import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { ResourceFormSchema } from './resource-editor.ts'

/**
 * The generic resource editor's Spec form as the browser renders it (decision 016): its native
 * constraints, without zod. `resource-editor.ts` holds the schema the action applies to a post.
 */

export * from './resource-editor-vocabulary.ts'

/** The Spec tab's form: `getZodConstraint(ResourceFormSchema)`. */
export const ResourceShape = formShape<z.input<typeof ResourceFormSchema>>({
  intent: { required: true },
  name: { required: false, maxLength: 253 },
  namespace: { required: false, maxLength: 253 },
  yaml: { required: true },
})

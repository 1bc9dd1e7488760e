import type { z } from 'zod'
import { formShape } from './form-shape.ts'
import type { PlaybookEditorFormSchema } from './playbook-editor-form.ts'

/** The playbook editor as the browser renders it (decision 016): `getZodConstraint(PlaybookEditorFormSchema)`. */
export const PlaybookEditorShape = formShape<z.input<typeof PlaybookEditorFormSchema>>({
  intent: { required: true },
  name: { required: true, maxLength: 253 },
  namespace: { required: false, maxLength: 63 },
  title: { required: false, maxLength: 200 },
  category: { required: false, maxLength: 100 },
  icon: { required: false, maxLength: 100 },
  description: { required: false, maxLength: 2000 },
  spec: { required: true },
})

/** Where the editor returns to, after a save or on Back and Cancel: the playbook catalogue. */
export const PLAYBOOKS_HREF = '/playbooks'

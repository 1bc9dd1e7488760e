import type { z } from 'zod'
import { formShape } from './form-shape.ts'
import type { TopologyFormSchema } from './topology-form.ts'

/** The topology form as the browser renders it (decision 016): `getZodConstraint(TopologyFormSchema)`. */
export const TopologyFormShape = formShape<z.input<typeof TopologyFormSchema>>({
  intent: { required: true },
  name: { required: true, maxLength: 253 },
  namespace: { required: false, maxLength: 63 },
  labels: { required: false, multiple: true },
  'labels[]': { required: true },
  'labels[].key': { required: false, maxLength: 316 },
  'labels[].value': { required: false, maxLength: 63 },
  spec: { required: true },
})

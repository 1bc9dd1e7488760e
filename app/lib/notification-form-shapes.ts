import type { z } from 'zod'
import { formShape } from './form-shape.ts'
import type { NotificationRuleFormSchema, SilenceFormSchema } from './notification-forms.ts'

/**
 * What the notification pages render (decision 016: no zod here): the native constraints of the
 * rule and silence forms, equal to `getZodConstraint` of their schemas in `notification-forms.ts`,
 * beside the vocabulary they are written in.
 */
export * from './notification-vocabulary.ts'

/** The rule editor as the browser renders it: `getZodConstraint(NotificationRuleFormSchema)`. */
export const NotificationRuleShape = formShape<z.input<typeof NotificationRuleFormSchema>>({
  intent: { required: true },
  name: { required: true, maxLength: 253 },
  namespace: { required: false, maxLength: 63 },
  events: { required: false, multiple: true },
  'events[]': { required: true },
  title: { required: false, maxLength: 500 },
  filter: { required: false, maxLength: 4000 },
  repeatInterval: { required: false, maxLength: 50 },
  recipientKind: { required: false, pattern: 'person|team|email|connection|url|playbook' },
  recipient: { required: false, maxLength: 2000 },
  spec: { required: false },
})

/** The add and edit silence forms: `getZodConstraint(SilenceFormSchema)`. */
export const SilenceShape = formShape<z.input<typeof SilenceFormSchema>>({
  intent: { required: true, pattern: 'save|preview' },
  resource: { required: false, maxLength: 60 },
  description: { required: false, maxLength: 1000 },
  from: { required: false },
  until: { required: false },
  indefinitely: { required: false },
  recursive: { required: false },
  filter: { required: false, maxLength: 4000 },
})

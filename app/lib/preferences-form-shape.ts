import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import { DATE_TIME_FORMATS } from './format.ts'
import type { PreferencesFormSchema } from './preferences-form.ts'
import { CARD_WIDTH } from './preferences.ts'

/** The preferences panel's form as the browser renders it: `getZodConstraint(PreferencesFormSchema)` (decision 016). */
export const PreferencesShape = formShape<z.input<typeof PreferencesFormSchema>>({
  redirectTo: { required: false },
  showHiddenComponents: { required: false },
  showDeletedConfigs: { required: false },
  cardWidth: { required: true, min: CARD_WIDTH.min, max: CARD_WIDTH.max },
  dateTimeFormat: { required: true, pattern: DATE_TIME_FORMATS.join('|') },
  timeZone: { required: true },
})

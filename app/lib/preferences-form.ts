import { z } from 'zod'
import { DATE_TIME_FORMATS, isKnownTimeZone, type DateTimeFormat } from './format.ts'
import { BROWSER_TIME_ZONE, CARD_WIDTH, DEFAULT_PREFERENCES, type Preferences } from './preferences.ts'

/** The preferences panel's form and the cookie's reader (loaded by the panel and the server only). */

const TimeZoneSchema = z
  .string()
  .trim()
  .refine((zone) => zone === BROWSER_TIME_ZONE || (zone.length <= 64 && isKnownTimeZone(zone)), 'Unknown timezone')

const CardWidthSchema = z.coerce
  .number({ invalid_type_error: 'Card width must be a number' })
  .int('Card width must be a whole number')
  .min(CARD_WIDTH.min, `Card width is at least ${CARD_WIDTH.min}`)
  .max(CARD_WIDTH.max, `Card width is at most ${CARD_WIDTH.max}`)
  .refine((width) => width % CARD_WIDTH.step === 0, `Card width goes in steps of ${CARD_WIDTH.step}`)

/**
 * The panel's form. Checkboxes send 'on' when ticked and nothing otherwise; every field has a
 * fixed choice in the browser, so an error here means a hand-made request.
 */
export const PreferencesFormSchema = z.object({
  redirectTo: z.string().optional(),
  showHiddenComponents: z.literal('on').optional().transform(Boolean),
  showDeletedConfigs: z.literal('on').optional().transform(Boolean),
  cardWidth: CardWidthSchema,
  dateTimeFormat: z.enum(DATE_TIME_FORMATS as [DateTimeFormat, ...DateTimeFormat[]], {
    errorMap: () => ({ message: 'Choose short, medium, full or timestamp' }),
  }),
  timeZone: TimeZoneSchema,
})

/** Reads the stored preferences field by field: a bad or missing value falls back to its default. */
const StoredPreferencesSchema = z.object({
  showHiddenComponents: z.boolean().catch(DEFAULT_PREFERENCES.showHiddenComponents),
  showDeletedConfigs: z.boolean().catch(DEFAULT_PREFERENCES.showDeletedConfigs),
  cardWidth: CardWidthSchema.catch(DEFAULT_PREFERENCES.cardWidth),
  dateTimeFormat: z.enum(DATE_TIME_FORMATS as [DateTimeFormat, ...DateTimeFormat[]]).catch(DEFAULT_PREFERENCES.dateTimeFormat),
  timeZone: TimeZoneSchema.catch(DEFAULT_PREFERENCES.timeZone),
})

export function parseStoredPreferences(text: string | null | undefined): Preferences {
  let value: unknown = {}
  try {
    value = text ? JSON.parse(text) : {}
  } catch {
    value = {}
  }
  const parsed = StoredPreferencesSchema.safeParse(value && typeof value === 'object' ? value : {})
  return parsed.success ? parsed.data : DEFAULT_PREFERENCES
}


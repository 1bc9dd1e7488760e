import { z } from 'zod'
import { FEATURES, PROPERTY_NAME_PATTERN } from './features.ts'

/**
 * The feature flags screen (spec 000 §9, 002 §3/§4): properties are `{name, value}` pairs, and a
 * `<feature>.disable` set to `true` switches a feature off together with its children. What the
 * screen's forms accept and what its feature list shows, pure so the route, its component and
 * the tests share one definition.
 */

const propertyName = z
  .string({ required_error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(200, 'Name is too long (200 characters at most)')
  // A pipe, so a blank name gets one message, not two.
  .pipe(z.string().regex(PROPERTY_NAME_PATTERN, 'Use letters, digits and . _ - : / only, without spaces'))

const propertyValue = z
  .string({ required_error: 'Value is required' })
  .trim()
  .min(1, 'Value is required')
  .max(2000, 'Value is too long (2000 characters at most)')

export const CreatePropertySchema = z.object({ intent: z.literal('create'), name: propertyName, value: propertyValue })

/** The name is the key: editing changes the value only (rename = delete and add). */
export const UpdatePropertySchema = z.object({ intent: z.literal('update'), name: propertyName, value: propertyValue })

export const DeletePropertySchema = z.object({ intent: z.literal('delete'), name: propertyName })

export const ToggleFeatureSchema = z.object({
  intent: z.literal('toggle'),
  feature: z.enum(FEATURES, { errorMap: () => ({ message: 'Unknown feature' }) }),
  disabled: z.enum(['true', 'false'], { errorMap: () => ({ message: 'Choose enable or disable' }) }).transform((value) => value === 'true'),
})

/** The page's four forms, told apart by a hidden `intent`. */
export const FeatureFlagsActionSchema = z.discriminatedUnion('intent', [CreatePropertySchema, UpdatePropertySchema, DeletePropertySchema, ToggleFeatureSchema])

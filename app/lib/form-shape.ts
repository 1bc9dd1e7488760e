/** The browser's native constraints of one field, as conform's `getZodConstraint` derives them. */
export type FieldConstraint = {
  required?: boolean
  minLength?: number
  maxLength?: number
  min?: string | number
  max?: string | number
  step?: string | number
  multiple?: boolean
  pattern?: string
}
export type FormConstraint = Record<string, FieldConstraint>

/**
 * What a page needs to render a form whose action parses it with a zod schema: the fields' native
 * constraints, typed by the schema's input (`z.input<typeof Schema>`, a type only), in a module
 * without zod (decision 016). tests/app/form-shapes.test.ts checks each constraint equals
 * `getZodConstraint(Schema)`, so the page and the action cannot drift apart.
 */
export type FormShape<Input extends Record<string, unknown>> = { readonly constraint: FormConstraint; readonly input?: Input }

export function formShape<Input extends Record<string, unknown>>(constraint: FormConstraint): FormShape<Input> {
  return { constraint }
}

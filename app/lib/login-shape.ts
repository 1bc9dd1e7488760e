import type { z } from 'zod'
import { formShape } from '#app/lib/form-shape.ts'
import type { LoginSchema } from './login-form.ts'

/** The token sign-in form as the page renders it: `getZodConstraint(LoginSchema)` (decision 016). */
export const LoginShape = formShape<z.input<typeof LoginSchema>>({ token: { required: true, minLength: 1 }, returnTo: { required: false } })

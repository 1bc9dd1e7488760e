import { z } from 'zod'

/** The token sign-in form's schema, for the action only; the page renders `LoginShape` (login-shape.ts, decision 016). */
export const LoginSchema = z.object({
  token: z.string({ required_error: 'Access token is required' }).trim().min(1, 'Access token is required'),
  returnTo: z.string().optional(),
})

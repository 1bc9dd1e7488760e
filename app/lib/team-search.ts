import { z } from 'zod'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

/** The page's search parameters: its tab and open dialog; a bad value falls back to the default. */
const TeamSearchSchema = z.object({
  tab: z.enum(['spec', 'members', 'jobs']).catch('spec'),
  dialog: z.enum(['add-members', 'delete']).nullable().catch(null),
})

export function parseTeamSearch(params: URLSearchParams): z.infer<typeof TeamSearchSchema> {
  return TeamSearchSchema.parse({ tab: params.get('tab') ?? undefined, dialog: params.get('dialog') })
}

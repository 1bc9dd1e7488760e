import { z } from 'zod'

/* Loader-only: module-level zod schemas stay out of the modules a page's component imports (decision 016). */

/**
 * This page's search parameters: the tab, the job history page and open job, and the new
 * health check's type and view. An unknown or bad value falls back to its default.
 */
const ResourceSearchSchema = z.object({
  tab: z.enum(['spec', 'jobs']).catch('spec'),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
  job: z.string().max(200).nullable().catch(null),
  jobTab: z.string().max(100).nullable().catch(null),
  type: z.string().max(100).nullable().catch(null),
  view: z.enum(['form', 'code']).nullable().catch(null),
  dialog: z.enum(['delete']).nullable().catch(null),
})
export type ResourceSearch = z.infer<typeof ResourceSearchSchema>

export function parseResourceSearch(url: URL): ResourceSearch {
  const value = (name: string) => url.searchParams.get(name)
  return ResourceSearchSchema.parse({
    tab: value('tab') ?? undefined,
    page: value('page') ?? undefined,
    job: value('job'),
    jobTab: value('jobTab'),
    type: value('type'),
    view: value('view'),
    dialog: value('dialog'),
  })
}

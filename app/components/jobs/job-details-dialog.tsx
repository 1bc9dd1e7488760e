import { Link } from '@remix-run/react'
import { UrlDialog } from '#app/components/ui/dialog.tsx'
import { cn } from '#app/lib/cn.ts'
import { JOB_DETAIL_TABS, jobDetailTabs, type JobDetailTab, type JobDetails } from './job-vocabulary.ts'

export type JobDetailsDialogProps = {
  name: string
  details: JobDetails
  tab: JobDetailTab | null
  /** The list's URL without the dialog's parameters. */
  closeTo: string
  /** The URL of one tab (the dialog's parameters set). */
  tabHref: (tab: JobDetailTab) => string
}

function errorLines(errors: unknown): string[] {
  if (Array.isArray(errors)) return errors.map((error) => (typeof error === 'string' ? error : JSON.stringify(error)))
  return [typeof errors === 'string' ? errors : JSON.stringify(errors, null, 2)]
}

/**
 * 'Details for job {name}' (spec 002 §2 "Job history"): Errors, Scrape Summary and Reconcile
 * Summary, each a link, so the dialog and its tabs are URLs the server renders without JavaScript.
 * Only the tabs the job fills are offered; the page does not open the dialog for a job with none.
 */
export function JobDetailsDialog({ name, details, tab, closeTo, tabHref }: JobDetailsDialogProps) {
  const tabs = jobDetailTabs(details)
  const current = tab && tabs.includes(tab) ? tab : tabs[0]
  const value = current === 'errors' ? details.errors : current === 'scrape' ? details.scrape_summary : details.summary
  return (
    <UrlDialog title={`Details for job ${name}`} closeTo={closeTo} size="large" testId="job-details">
      <nav role="tablist" aria-label="Job details" className="flex gap-1 border-b" data-testid="job-details-tabs">
        {JOB_DETAIL_TABS.filter(([key]) => tabs.includes(key)).map(([key, label]) => (
          <Link
            key={key}
            to={tabHref(key)}
            role="tab"
            aria-selected={key === current}
            replace
            preventScrollReset
            className={cn('-mb-px border-b-2 px-3 py-1.5 text-sm', key === current ? 'border-primary font-medium text-foreground' : 'border-transparent text-muted-foreground hover:text-foreground')}
            data-testid={`job-tab-${key}`}
          >
            {label}
          </Link>
        ))}
      </nav>
      <div role="tabpanel" className="max-h-[60vh] overflow-auto" data-testid="job-details-panel">
        {current === 'errors' ? (
          <ul className="flex flex-col gap-2 text-sm">
            {errorLines(value).map((line, index) => (
              <li key={index} className="whitespace-pre-wrap break-words rounded-md bg-danger-muted px-2 py-1 font-mono text-xs text-danger">
                {line}
              </li>
            ))}
          </ul>
        ) : (
          <pre className="whitespace-pre-wrap break-words rounded-md bg-muted p-3 font-mono text-xs">{JSON.stringify(value, null, 2)}</pre>
        )}
      </div>
    </UrlDialog>
  )
}

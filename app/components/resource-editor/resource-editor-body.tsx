import type { SubmissionResult } from '@conform-to/react'
import { Link } from '@remix-run/react'
import { lazy, Suspense, type ReactNode } from 'react'
import { ConfirmDialog as ServerRenderedConfirmDialog } from '#app/components/confirm-dialog/confirm-dialog.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { Toast } from '#app/components/toast.tsx'
import { DELETE_CONFIRMATION, type JobHistoryRow, type ResourceKind, type SourceInfo } from '#app/lib/resource-editor-vocabulary.ts'
import { JobHistory as ServerRenderedJobHistory } from './job-history.tsx'
import { ResourceForm, type SpecErrorDetail } from './resource-form.tsx'
import { ResourceTabs } from './resource-tabs.tsx'
import { SourceNotice } from './source-notice.tsx'

// What only some visits show loads when shown: the Job History tab and the delete dialog. The
// server renders each in place, so the no-JS page and hydration see the same markup (decisions
// 007, 014).
const JobHistory = import.meta.env.SSR
  ? ServerRenderedJobHistory
  : /* @__PURE__ */ lazy(() => import('./job-history.tsx').then((module) => ({ default: module.JobHistory })))
const ConfirmDialog = import.meta.env.SSR
  ? ServerRenderedConfirmDialog
  : /* @__PURE__ */ lazy(() => import('#app/components/confirm-dialog/confirm-dialog.tsx').then((module) => ({ default: module.ConfirmDialog })))

export type EditorValues = { yaml: string; name: string; namespace: string }

export type EditorJobs = { rows: JobHistoryRow[]; total: number | null; page: number; error: string | null; openJobId: string | null; openJobTab: string | null }

/** What an editor page's loader hands its body. */
export type EditorLoaded = {
  mode: 'create' | 'edit'
  id: string | null
  name: string | null
  missing: boolean
  source: string | null
  info: SourceInfo
  canWrite: boolean
  tab: 'spec' | 'jobs'
  jobs: EditorJobs | null
  dialog: 'delete' | null
  toast: string | null
  now: string
  values: EditorValues
  /** Remounts the form when the stored resource (or the chosen type) changes. */
  version: string
}

/** What an editor page's action hands back with a refusal: which form sent it, conform's reply, the spec error's line and details. */
export type EditorAnswer = {
  intent: string
  result: SubmissionResult<string[]> | null
  specDetail: SpecErrorDetail | null
  /** 'Edit as YAML': a type form's answers as a document, for the Code tab. */
  view: 'code' | null
  values: EditorValues | null
}

/** A new resource's type picker (health checks, scrapers): its step, and how to draw it in a view. */
export type EditorPicker = {
  step: 'grid' | 'form' | 'code'
  render: (view: 'form' | 'code', lastResult: SubmissionResult<string[]> | null) => ReactNode
}

/**
 * The generic resource editor's page (spec 002 §2 "Resource editor"): the breadcrumb, the Spec and
 * Job History tabs, a new resource's type picker, the YAML form (read-only when the source is not
 * UI or the user may not write), the job history, the delete question and the toast. The settings
 * editor (/settings/{table}/{id}) and the scraper editor (/catalog/scrapers/{id}) render their
 * loader's data through it.
 */
export function ResourceEditorBody({
  kind,
  loaded,
  answer,
  listHref,
  selfHref,
  busy,
  picker,
  actions,
  testId,
}: {
  kind: ResourceKind
  loaded: EditorLoaded
  answer: EditorAnswer | null
  listHref: string
  selfHref: string
  busy: boolean
  picker: EditorPicker | null
  /** Buttons beside the breadcrumb (Run Now). */
  actions?: ReactNode
  testId: string
}) {
  const { mode, id, name, missing, info, source, canWrite, tab, jobs, dialog, toast, now } = loaded
  const readOnly = info.readOnly || !canWrite
  const saveResult = answer?.intent === 'save' ? answer : null
  // A refused save from the Code tab stays in the Code tab.
  const view = answer?.view ?? (saveResult ? 'code' : picker?.step)
  const pageError = answer && !['save', 'create-from-form', 'form-to-code'].includes(answer.intent) ? Object.values(answer.result?.error ?? {}).flat().find(Boolean) : null

  return (
    <section className="flex flex-col gap-4 p-6" data-testid={testId} data-table={kind.table} data-read-only={readOnly} data-mode={mode}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <nav aria-label="Breadcrumb" className="text-sm text-muted-foreground">
          <ol className="flex items-center gap-1.5">
            <li>
              <Link to={listHref} className="hover:text-foreground hover:underline" data-testid="breadcrumb-list">
                {kind.label}
              </Link>
            </li>
            <li aria-hidden="true">/</li>
            <li aria-current="page" className="truncate text-foreground" data-testid="breadcrumb-current">
              {mode === 'create' ? `New ${kind.singular.toLowerCase()}` : (name ?? id)}
            </li>
          </ol>
        </nav>
        {actions}
      </div>
      <InlineError message={pageError} />
      {missing ? (
        <div className="flex flex-col items-start gap-3 py-10" data-testid="resource-missing">
          <p className="text-muted-foreground">No resources found</p>
          <Link to={listHref} className="text-sm underline-offset-4 hover:underline">
            Back to {kind.label}
          </Link>
        </div>
      ) : (
        <>
          {mode === 'edit' ? (
            <ResourceTabs
              current={tab}
              tabs={[
                { id: 'spec', label: 'Spec', href: selfHref },
                { id: 'jobs', label: 'Job History', href: `${selfHref}?tab=jobs` },
              ]}
            />
          ) : null}
          {picker ? <Suspense fallback={null}>{picker.render(view === 'code' ? 'code' : 'form', answer?.intent === 'create-from-form' ? answer.result : null)}</Suspense> : null}
          {picker?.step === 'grid' || (picker?.step === 'form' && view === 'form') ? null : tab === 'spec' ? (
            <>
              <SourceNotice info={info} source={source} />
              {!canWrite && !info.readOnly ? (
                <p className="text-sm text-muted-foreground" data-testid="no-write-access">
                  You can look at this resource but not change it.
                </p>
              ) : null}
              <ResourceForm
                key={loaded.version}
                kind={kind}
                mode={mode}
                values={answer?.values ?? loaded.values}
                lastResult={saveResult?.result}
                specDetail={saveResult?.specDetail}
                readOnly={readOnly}
                canDelete={mode === 'edit' && !readOnly}
                cancelHref={listHref}
                deleteHref={`${selfHref}?dialog=delete`}
                busy={busy}
              />
            </>
          ) : jobs ? (
            <>
              <InlineError message={jobs.error} />
              <Suspense fallback={null}>
                <JobHistory rows={jobs.rows} total={jobs.total} page={jobs.page} now={now} baseHref={`${selfHref}?tab=jobs${jobs.page > 1 ? `&page=${jobs.page}` : ''}`} openJobId={jobs.openJobId} openJobTab={jobs.openJobTab} />
              </Suspense>
            </>
          ) : null}
        </>
      )}
      {dialog === 'delete' ? (
        <Suspense fallback={null}>
          <ConfirmDialog title={`Delete ${name ?? ''}`} description={DELETE_CONFIRMATION} closeTo={selfHref} fields={{ intent: 'delete' }} busy={busy} testId="delete-dialog" />
        </Suspense>
      ) : null}
      <Toast message={toast} />
    </section>
  )
}

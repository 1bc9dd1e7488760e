import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node'
import { data } from '@remix-run/node'
import { useActionData, useLoaderData, useLocation, useNavigation, useRevalidator } from '@remix-run/react'
import { lazy, Suspense, useEffect } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { canRunNow, closePanelHref } from '#app/components/health/check-detail-model.ts'
import { parseDetailParams, parseHealthParams, parseRunNow } from '#app/components/health/health-params.ts'
import { CheckDetailPanel as ServerRenderedPanel } from '#app/components/health/check-detail-panel.tsx'
import { FILTER_TOGGLE_ID, HealthFilters, HealthTabs, HealthToolbar } from '#app/components/health/health-filters.tsx'
import { PAGE_SIZES } from '#app/components/health/health-model.ts'
import { HealthCards, HealthTable } from '#app/components/health/health-table.tsx'
import { Modal as ServerRenderedModal } from '#app/components/modal/modal.tsx'
import { Toast as ServerRenderedToast } from '#app/components/toast.tsx'
import { Skeleton } from '#app/components/ui/skeleton.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'
import { hasAccess } from '#app/lib/access.ts'
import { listPlaybooksFor } from '#app/lib/playbooks.server.ts'
import { isUuid } from '#contract/uuid.ts'
import { loadAgentNames, loadCheckDetail, loadHealthView, loadRefreshMs, runCheckNow } from '#app/lib/health.server.ts'

/*
 * The detail panel is a third of this page's code and most visits never open it. The browser
 * fetches it when a check is opened or a row is pointed at; the server renders it in place, so a
 * page opened with the panel needs no JavaScript to show it, and hydration waits for the chunk.
 */
const loadPanel = () => import('#app/components/health/check-detail-panel.tsx')
const CheckDetailPanel = import.meta.env.SSR
  ? ServerRenderedPanel
  : /* @__PURE__ */ lazy(() => loadPanel().then((module) => ({ default: module.CheckDetailPanel })))
// Only Run Now's answer shows a toast, and only an unknown checkId shows the bare modal.
const Toast = import.meta.env.SSR
  ? ServerRenderedToast
  : /* @__PURE__ */ lazy(() => import('#app/components/toast.tsx').then((module) => ({ default: module.Toast })))
const Modal = import.meta.env.SSR
  ? ServerRenderedModal
  : /* @__PURE__ */ lazy(() => import('#app/components/modal/modal.tsx').then((module) => ({ default: module.Modal })))

export const handle = { title: 'Health', feature: 'health', resource: 'canaries' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const url = new URL(args.request.url)
  const params = parseHealthParams(url.searchParams)
  const detailParams = parseDetailParams(url.searchParams)
  try {
    const [view, refreshMs, detail, playbooks] = await Promise.all([
      loadHealthView(args, params, () => loadAgentNames(args)),
      loadRefreshMs(args),
      params.checkId ? loadCheckDetail(args, params.checkId, params.timeRange, detailParams) : Promise.resolve(null),
      params.checkId && isUuid(params.checkId) && hasAccess(session, 'playbook_runs', 'write') ? listPlaybooksFor(args, { check_id: params.checkId }) : null,
    ])
    return {
      params: {
        layout: params.layout,
        query: params.query,
        groupBy: params.groupBy,
        tabBy: params.tabBy,
        hidePassing: params.hidePassing,
        labels: { ...params.labels },
        sortBy: params.sortBy,
        sortDesc: params.sortDesc,
        pageSize: params.pageSize,
        expanded: params.expanded,
        timeRange: params.timeRange,
        checkId: params.checkId,
      },
      view,
      detail,
      playbooks,
      detailParams,
      canRunNow: canRunNow(session.roles),
      refreshMs,
      now: new Date().toISOString(),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export async function action(args: ActionFunctionArgs) {
  const session = await requireAccess(args, handle)
  const runNow = parseRunNow(await args.request.formData())
  if (!runNow.ok) return data({ ok: false, message: runNow.message }, { status: 400 })
  const checkId = runNow.checkId
  if (!canRunNow(session.roles)) return data({ ok: false, message: 'You do not have permission to run this check' }, { status: 403 })
  const result = await runCheckNow(args, checkId)
  return data(result, { status: result.ok ? 200 : 502 })
}

/** Reloads on the global refresh-rate setting; focus alone never triggers a reload (spec 001 §9). */
function useRefreshInterval(ms: number) {
  const revalidator = useRevalidator()
  useEffect(() => {
    if (ms <= 0) return
    const timer = setInterval(() => {
      if (revalidator.state === 'idle' && document.visibilityState === 'visible') revalidator.revalidate()
    }, ms)
    return () => clearInterval(timer)
  }, [ms, revalidator])
}

function ListSkeleton() {
  return (
    <div className="flex flex-col gap-2" data-testid="health-skeleton">
      {Array.from({ length: 8 }, (_, index) => (
        <Skeleton key={index} className="h-8 w-full" />
      ))}
    </div>
  )
}

function preloadPanel(event: { target: EventTarget }) {
  if (event.target instanceof Element && event.target.closest('a[href*="checkId="]')) void loadPanel()
}

export default function HealthRoute() {
  const { params, view, detail, playbooks, detailParams, canRunNow: mayRun, refreshMs, now: nowText } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  useRefreshInterval(refreshMs)
  const now = new Date(nowText)
  const loadingList = navigation.state === 'loading' && navigation.location.pathname === '/health' && view.rows.length === 0
  const pagination = { page: view.page, pageCount: view.pageCount, pageSize: params.pageSize, pageSizes: PAGE_SIZES, totalRows: view.totalRows }
  return (
    <div className="flex min-h-full">
      <input type="checkbox" id={FILTER_TOGGLE_ID} className="peer sr-only" aria-label="Show filters" />
      <HealthFilters hidePassing={params.hidePassing} labels={params.labels} labelOptions={view.labelOptions} filterCount={view.filterCount} />
      <div className="flex min-w-0 flex-1 flex-col gap-3 p-4" data-testid="health-page" data-total-checks={view.totalChecks} onPointerOver={preloadPanel} onFocus={preloadPanel}>
        <HealthToolbar
          query={params.query}
          groupBy={params.groupBy}
          tabBy={params.tabBy}
          layout={params.layout}
          groupByOptions={view.groupByOptions}
          tabByOptions={view.tabByOptions}
          filterCount={view.filterCount}
        />
        <p className="text-xs text-muted-foreground" data-testid="health-counts">
          {view.counts.all} checks · {view.counts.healthy} healthy · {view.counts.unhealthy} unhealthy · showing {view.totalChecks}
        </p>
        <HealthTabs tabs={view.tabs} active={view.activeTab} />
        {loadingList ? (
          <ListSkeleton />
        ) : params.layout === 'card' ? (
          <HealthCards rows={view.rows} expanded={params.expanded} now={now} />
        ) : (
          <HealthTable rows={view.rows} sortBy={params.sortBy} sortDesc={params.sortDesc} expanded={params.expanded} pagination={pagination} now={now} />
        )}
      </div>
      <Suspense fallback={null}>
        {params.checkId && detail ? (
          <CheckDetailPanel detail={detail} params={detailParams} timeRange={params.timeRange} canRunNow={mayRun} now={now} playbooks={playbooks} />
        ) : null}
      </Suspense>
      <Suspense fallback={null}>{params.checkId && !detail ? <MissingCheck /> : null}</Suspense>
      <Suspense fallback={null}>
        {actionData ? <Toast key={actionData.message + nowText} message={actionData.message} tone={actionData.ok ? 'success' : 'error'} /> : null}
      </Suspense>
    </div>
  )
}

function MissingCheck() {
  const { search } = useLocation()
  return (
    <Modal title="Check" closeTo={closePanelHref(search)} size="small" testId="check-detail">
      <p className="text-sm text-muted-foreground">No details found</p>
    </Modal>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { Form, Link, useLocation, useNavigate, useNavigation } from '@remix-run/react'
import { type FormEvent } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { Play } from '#app/components/ui/icons.tsx'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { HiddenParams } from '#app/components/data-table/hidden-params.tsx'
import { DateTime, useFormatDate } from '#app/components/date-time.tsx'
import { Modal } from '#app/components/modal/modal.tsx'
import { LinkToIncident } from '#app/components/incidents/attach-evidence.tsx'
import { PlaybooksMenu, type PlaybookMenuEntry } from '#app/components/playbooks/playbooks-menu.tsx'
import { TimeRangePicker } from '#app/components/time-range/time-range-picker.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'
import { formatLatency, formatPercent, timeAgo } from '#app/lib/format.ts'
import { DURATION_KEYS, type DurationKey } from '#app/lib/time-range.ts'
import type { NextRun } from '#contract/canary/next-run.ts'
import { closePanelHref, CUSTOM_DURATION, DURATION_PRESETS, HISTORY_PAGE_SIZE, type DetailParams, type DetailTab, type GraphPoint } from './check-detail-model.ts'
import { CheckGraph } from './check-graph.tsx'
import { withParams } from './health-model.ts'
import { StatusDot } from './status-dot.tsx'

type HistoryRow = { time: string; duration: number | null; status: boolean; message: string | null; error: string | null; invalid: boolean | null }

export type CheckDetailView = {
  check: {
    id: string
    name: string
    type: string
    namespace: string | null
    description: string | null
    severity: string | null
    labels: Record<string, string> | null
    status: string | null
    last_runtime: string | null
    last_transition_time: string | null
    next_runtime: string | null
  }
  nextRun: NextRun
  graph: { points: GraphPoint[]; latency: { p95?: number; p97?: number; p99?: number }; uptime: { passed: number; failed: number } } | null
  history: { rows: HistoryRow[]; total: number; pageCount: number } | null
  specYaml: string | null
  relationships: { id: string; name: string; type: string | null; kind: 'component' | 'config'; href: string }[] | null
  error: string | null
}

export type CheckDetailPanelProps = {
  detail: CheckDetailView
  params: DetailParams
  timeRange: DurationKey
  canRunNow: boolean
  now: Date
  /** The playbooks that may run on this check (issue 16), for the Playbooks drop-down. */
  playbooks?: PlaybookMenuEntry[] | null
}

const TAB_LABELS: Record<DetailTab, string> = { history: 'History', graph: 'Graph', spec: 'Spec', relationships: 'Relationships' }

function Stat({ label, children, testId }: { label: string; children: React.ReactNode; testId: string }) {
  return (
    <div className="flex flex-col gap-0.5 rounded-md border px-3 py-2" data-testid={testId}>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm font-medium">{children || '—'}</dd>
    </div>
  )
}

const historyColumns = (now: Date): UrlColumn<HistoryRow>[] => [
  { id: 'time', header: 'Time', cell: ({ row }) => <DateTime value={row.original.time} now={now} />, enableSorting: false },
  { id: 'status', header: 'Status', cell: ({ row }) => <StatusDot status={row.original.status ? 'healthy' : 'unhealthy'} />, enableSorting: false },
  { id: 'duration', header: 'Duration', cell: ({ row }) => formatLatency(row.original.duration), enableSorting: false },
  { id: 'message', header: 'Message', cell: ({ row }) => <span className={cn('line-clamp-2 break-all text-xs', row.original.error && 'text-danger')}>{row.original.error || row.original.message}</span>, enableSorting: false },
]

/** Where the history filters' values lead: unchanged parameters kept, the history back on page 1. */
function historyHref(search: string, status: string, duration: string): string {
  return withParams(search, { historyStatus: status === 'all' ? null : status, historyDuration: duration || null, historyDurationCustom: null, historyPage: null }, true)
}

/**
 * Status and duration (spec 000 §2: All / 100ms … 30s or a custom value). Without JavaScript a
 * GET form with Apply; with it a change applies at once, the custom value on Enter or when the
 * field is left. The custom field shows while 'Custom' is chosen (CSS, so also without JS).
 */
function HistoryFilters({ params }: { params: DetailParams }) {
  const { search } = useLocation()
  const navigate = useNavigate()
  const hydrated = useHydrated()
  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form)
    const choice = String(data.get('historyDuration') ?? '')
    const duration = choice === CUSTOM_DURATION ? String(data.get('historyDurationCustom') ?? '').trim() : choice
    const href = historyHref(search, String(data.get('historyStatus') ?? 'all'), duration)
    if (href !== withParams(search, {}, true)) navigate(href, { replace: true, preventScrollReset: true })
  }
  const onChange = (event: FormEvent<HTMLFormElement>) => {
    const target = event.target as HTMLElement
    if (!(target instanceof HTMLSelectElement)) return
    if (target.name === 'historyDuration' && target.value === CUSTOM_DURATION) {
      const custom = event.currentTarget.elements.namedItem('historyDurationCustom') as HTMLInputElement | null
      if (!custom?.value.trim()) return custom?.focus()
    }
    apply(event.currentTarget)
  }
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    apply(event.currentTarget)
  }
  return (
    <Form
      method="get"
      preventScrollReset
      key={`${params.status}|${params.duration}`}
      className="group flex flex-wrap items-end gap-2"
      data-testid="history-filters"
      onChange={hydrated ? onChange : undefined}
      onSubmit={hydrated ? onSubmit : undefined}
    >
      <HiddenParams search={search} exclude={['historyStatus', 'historyDuration', 'historyDurationCustom', 'historyPage']} />
      <label className="flex flex-col gap-1 text-sm">
        Status
        <select name="historyStatus" defaultValue={params.status} className="h-8 rounded-md border border-input bg-card px-2" data-testid="history-status">
          <option value="all">All</option>
          <option value="healthy">Healthy</option>
          <option value="unhealthy">Unhealthy</option>
        </select>
      </label>
      <label className="flex flex-col gap-1 text-sm">
        Duration
        <select name="historyDuration" defaultValue={params.durationIsPreset ? params.duration : CUSTOM_DURATION} className="h-8 rounded-md border border-input bg-card px-2" data-testid="history-duration">
          <option value="">All</option>
          {DURATION_PRESETS.map((preset) => (
            <option key={preset} value={preset}>
              {preset}
            </option>
          ))}
          <option value={CUSTOM_DURATION}>Custom</option>
        </select>
      </label>
      <label className="hidden flex-col gap-1 text-sm group-has-[option[value=custom]:checked]:flex">
        Custom duration
        <input
          name="historyDurationCustom"
          defaultValue={params.durationIsPreset ? '' : params.duration}
          placeholder="e.g. 250ms, 2s"
          aria-invalid={params.durationError ? true : undefined}
          aria-describedby={params.durationError ? 'history-duration-error' : undefined}
          onBlur={hydrated ? (event) => event.currentTarget.value.trim() !== (params.durationIsPreset ? '' : params.duration) && event.currentTarget.form && apply(event.currentTarget.form) : undefined}
          className="h-8 w-32 rounded-md border border-input bg-card px-2 aria-[invalid=true]:border-danger"
          data-testid="history-duration-custom"
        />
      </label>
      {hydrated ? null : (
        <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="history-apply">
          Apply
        </button>
      )}
    </Form>
  )
}

function HistoryTab({ detail, params, now }: { detail: CheckDetailView; params: DetailParams; now: Date }) {
  return (
    <div className="flex flex-col gap-3" data-testid="history-tab">
      <HistoryFilters params={params} />
      {params.durationError ? (
        <p id="history-duration-error" role="alert" className="text-sm text-danger" data-testid="history-duration-error">
          {params.durationError}
        </p>
      ) : null}
      {detail.history ? (
        <UrlTable<HistoryRow>
          data={detail.history.rows}
          columns={historyColumns(now)}
          getRowId={(row) => row.time}
          testId="history-table"
          pagination={{ page: params.page, pageCount: detail.history.pageCount, pageSize: HISTORY_PAGE_SIZE, pageSizes: [HISTORY_PAGE_SIZE], pageParam: 'historyPage', pageSizeParam: 'historyPageSize', totalRows: detail.history.total, testId: 'history-pagination' }}
        />
      ) : null}
    </div>
  )
}

/** Never a time in the past (issue 12): the next tick, "due now", or "not scheduled" when nothing here runs the check. */
function NextRunText({ nextRun, now }: { nextRun: NextRun; now: Date }) {
  const formatDate = useFormatDate()
  if (nextRun.kind === 'due') return <span data-next-run="due">due now</span>
  if (nextRun.kind === 'not-scheduled') return <span data-next-run="not-scheduled">not scheduled</span>
  return (
    <time dateTime={nextRun.at} title={formatDate(nextRun.at, now)} data-next-run="at">
      {timeAgo(nextRun.at, now)}
    </time>
  )
}

/**
 * The check detail panel (spec 000 §2, 001 §2): a URL modal over the list with the check's
 * figures, an overview chart on tall screens, and four tabs.
 */
export function CheckDetailPanel({ detail, params, timeRange, canRunNow, now, playbooks }: CheckDetailPanelProps) {
  const { search } = useLocation()
  const navigation = useNavigation()
  const running = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'run-now'
  const { check, graph } = detail
  const latency = graph?.latency ?? {}
  const uptime = graph ? formatPercent(graph.uptime.passed, graph.uptime.passed + graph.uptime.failed) : null
  const status = check.status === 'healthy' ? 'healthy' : check.status === 'unhealthy' ? 'unhealthy' : 'unknown'
  return (
    <Modal
      title={
        <span className="flex items-center gap-2" data-testid="check-title">
          <StatusDot status={status} />
          {check.name}
          <Badge variant="outline">{check.type}</Badge>
        </span>
      }
      closeTo={closePanelHref(search)}
      size="large"
      testId="check-detail"
      headerExtra={
        <div className="flex items-center gap-2">
          <TimeRangePicker mode="duration" value={timeRange} durations={DURATION_KEYS} testId="check-time-range" />
          {/* Incidents (issue 6): 'Attach as Evidence'. Run Now's roles are exactly the incident writers; the component also hides itself when the incidents feature is off. */}
          <LinkToIncident target={{ type: 'check', check_id: check.id, description: `${check.name} is ${check.status ?? 'unknown'}` }} canLink={canRunNow} />
          <PlaybooksMenu playbooks={playbooks} target={{ check_id: check.id }} returnTo={`/health${search}`} />
          {canRunNow ? (
            <Form method="post" preventScrollReset>
              <input type="hidden" name="intent" value="run-now" />
              <input type="hidden" name="checkId" value={check.id} />
              <button type="submit" disabled={running} className={buttonVariants({ size: 'sm' })} data-testid="run-now">
                <Play aria-hidden="true" />
                {running ? 'Running…' : 'Run Now'}
              </button>
            </Form>
          ) : null}
        </div>
      }
    >
      <div className="flex flex-col gap-4">
        {check.description ? <p className="text-sm text-muted-foreground">{check.description}</p> : null}
        <div className="flex flex-wrap gap-1" data-testid="check-labels">
          {Object.entries(check.labels ?? {}).map(([key, value]) => (
            <Badge key={key} variant="secondary">
              {key}: {value}
            </Badge>
          ))}
        </div>
        <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8">
          <Stat label="Uptime" testId="stat-uptime">{uptime}</Stat>
          <Stat label="Latency (95)" testId="stat-p95">{formatLatency(latency.p95)}</Stat>
          <Stat label="Latency (97)" testId="stat-p97">{formatLatency(latency.p97)}</Stat>
          <Stat label="Latency (99)" testId="stat-p99">{formatLatency(latency.p99)}</Stat>
          <Stat label="Severity" testId="stat-severity">{check.severity}</Stat>
          <Stat label="Last run" testId="stat-last-run">{timeAgo(check.last_runtime, now)}</Stat>
          <Stat label="Transitioned" testId="stat-transitioned">{timeAgo(check.last_transition_time, now)}</Stat>
          <Stat label="Next run" testId="stat-next-run">
            <NextRunText nextRun={detail.nextRun} now={now} />
          </Stat>
        </dl>
        {detail.error ? (
          <p role="alert" className="text-sm text-danger" data-testid="check-detail-error">
            {detail.error}
          </p>
        ) : null}
        {graph ? (
          <div className="hidden [@media(min-height:992px)]:block" data-testid="overview-chart">
            <CheckGraph points={graph.points} now={now} testId="overview-graph" />
          </div>
        ) : null}
        <nav className="flex gap-1 border-b" aria-label="Check detail tabs">
          {(Object.keys(TAB_LABELS) as DetailTab[]).map((tab) => (
            <Link
              key={tab}
              to={withParams(search, { checkTab: tab === 'history' ? null : tab, historyPage: null }, true)}
              preventScrollReset
              replace
              aria-current={params.tab === tab ? 'page' : undefined}
              data-testid={`check-tab-${tab}`}
              className={cn(
                'border-b-2 px-3 py-2 text-sm',
                params.tab === tab ? 'border-primary font-semibold' : 'border-transparent text-muted-foreground',
                // Screens taller than 992 px show the overview chart instead (spec 000 §9, 001 §2).
                tab === 'graph' && '[@media(min-height:992px)]:hidden',
              )}
            >
              {TAB_LABELS[tab]}
            </Link>
          ))}
        </nav>
        {params.tab === 'history' ? <HistoryTab detail={detail} params={params} now={now} /> : null}
        {params.tab === 'graph' && graph ? (
          <div className="[@media(min-height:992px)]:hidden" data-testid="graph-tab">
            <CheckGraph points={graph.points} now={now} />
          </div>
        ) : null}
        {params.tab === 'spec' ? (
          <pre className="max-h-[50vh] overflow-auto rounded-md bg-muted p-3 font-mono text-xs" data-testid="check-spec">
            {detail.specYaml}
          </pre>
        ) : null}
        {params.tab === 'relationships' ? (
          <div data-testid="check-relationships">
            {detail.relationships && detail.relationships.length > 0 ? (
              <ul className="flex flex-col gap-1 text-sm">
                {detail.relationships.map((item) => (
                  <li key={`${item.kind}-${item.id}`} className="flex items-center gap-2">
                    <Badge variant="outline">{item.kind}</Badge>
                    <Link to={item.href} className="hover:underline">
                      {item.name}
                    </Link>
                    {item.type ? <span className="text-xs text-muted-foreground">{item.type}</span> : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="text-sm text-muted-foreground">No details found</p>
            )}
          </div>
        ) : null}
      </div>
    </Modal>
  )
}

import { Link } from '@remix-run/react'
import { lazy, Suspense } from 'react'
import { TimeRangePicker as ServerRenderedTimeRangePicker } from '#app/components/time-range/time-range-picker.tsx'
import { X } from '#app/components/ui/icons.tsx'
import { hrefWith, SEVERITIES, type ChangeListParams } from '#app/lib/catalog-vocabulary.ts'
import type { TimeRange } from '#app/lib/time-range.ts'
import { CatalogFilters } from './catalog-filters.tsx'
import type { ChangeRow } from '#app/lib/catalog-vocabulary.ts'
import { ChangesTable } from './change-columns.tsx'

// The picker's pop-over opens on demand: its code loads after the page, while the server renders
// it in place (the pattern of decisions 007 and 014), which keeps the page on its budget.
const TimeRangePicker = import.meta.env.SSR
  ? ServerRenderedTimeRangePicker
  : /* @__PURE__ */ lazy(() => import('#app/components/time-range/time-range-picker.tsx').then((module) => ({ default: module.TimeRangePicker })))

/**
 * /catalog/changes: every change with its filters, the shared time-range picker (the range in
 * the URL, spec 002 §2) and a table whose rows unfold their diff; `configId` in the URL (an
 * item's Changes tab links here with it) narrows to that item.
 */
export function ChangesList({
  rows,
  total,
  params,
  range,
  options,
  canLink,
  itemName,
  search,
}: {
  rows: ChangeRow[]
  total: number
  params: ChangeListParams
  range: TimeRange | null
  options: { changeTypes: string[]; configTypes: string[] }
  canLink: boolean
  itemName: string | null
  search: string
}) {
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="changes-list">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <CatalogFilters
          testId="change-filters"
          search={params.search}
          searchPlaceholder="Search summary or item"
          selects={[
            { name: 'configType', label: 'Config type', value: params.configType, options: options.configTypes },
            { name: 'changeType', label: 'Change type', value: params.changeType, options: options.changeTypes },
            { name: 'severity', label: 'Severity', value: params.severity, options: SEVERITIES },
          ]}
        />
        <Suspense fallback={null}>
          <TimeRangePicker mode="range" value={range} testId="changes-range" />
        </Suspense>
      </div>
      {params.configId ? (
        <Link to={hrefWith(search, { configId: null })} className="inline-flex w-fit items-center gap-1 rounded border bg-muted px-1.5 py-0.5 text-xs hover:bg-accent" data-testid="changes-item-filter">
          Item: {itemName ?? params.configId}
          <X aria-hidden="true" className="size-3" />
        </Link>
      ) : null}
      <ChangesTable rows={rows} total={total} params={params} canLink={canLink} withItem />
    </section>
  )
}

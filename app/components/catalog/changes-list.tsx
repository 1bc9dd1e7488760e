import { DataTable } from '#app/components/data-table/data-table.tsx'
import { TimeRangePicker } from '#app/components/time-range/time-range-picker.tsx'
import { CATALOG_PAGE_SIZES, SEVERITIES, type ChangeListParams } from '#app/lib/catalog-vocabulary.ts'
import { TIME_RANGE_PARAMS, type TimeRange } from '#app/lib/time-range.ts'
import { CatalogFilters } from './catalog-filters.tsx'
import { changeColumns, type ChangeListItem } from './change-columns.tsx'

/**
 * A list of changes with its filters, the shared time-range picker (range in the URL, spec 002
 * §2) and a table whose rows unfold their diff: /catalog/changes, and one item's Changes tab
 * (`withItem` false: no item column, no config type filter).
 */
export function ChangesList({
  rows,
  total,
  params,
  range,
  options,
  canLink,
  withItem,
}: {
  rows: ChangeListItem[]
  total: number
  params: ChangeListParams
  range: TimeRange | null
  options: { changeTypes: string[]; configTypes: string[] }
  canLink: boolean
  withItem: boolean
}) {
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="changes-list">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <CatalogFilters
          testId="change-filters"
          search={params.search}
          searchPlaceholder="Search summary or item"
          keep={['sortBy', 'sortDesc', 'pageSize', ...TIME_RANGE_PARAMS]}
          selects={[
            ...(withItem ? [{ name: 'configType', label: 'Config type', value: params.configType, options: options.configTypes }] : []),
            { name: 'changeType', label: 'Change type', value: params.changeType, options: options.changeTypes },
            { name: 'severity', label: 'Severity', value: params.severity, options: SEVERITIES },
          ]}
        />
        <TimeRangePicker mode="range" value={range} testId="changes-range" />
      </div>
      <DataTable
        data={rows}
        columns={changeColumns({ canLink, withItem })}
        getRowId={(row) => row.id}
        urlSorting={{ id: params.sortBy, desc: params.sortDesc }}
        pagination={{ page: params.page, pageCount, pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total }}
        testId="changes-table"
        rowTestId="change-row"
        caption="Config changes"
      />
    </section>
  )
}

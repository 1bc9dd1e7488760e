import { DataTable } from '#app/components/data-table/data-table.tsx'
import { CATALOG_PAGE_SIZES, INSIGHT_STATUSES, INSIGHT_TYPES, SEVERITIES, type InsightListParams } from '#app/lib/catalog-vocabulary.ts'
import { CatalogFilters } from './catalog-filters.tsx'
import { insightColumns, type InsightListItem } from './insight-columns.tsx'

/** A list of insights (config analysis) with its filters: /catalog/insights, and one item's Insights tab. */
export function InsightsList({ rows, total, params, analyzers, canLink, withItem }: { rows: InsightListItem[]; total: number; params: InsightListParams; analyzers: string[]; canLink: boolean; withItem: boolean }) {
  const pageCount = Math.max(1, Math.ceil(total / params.pageSize))
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="insights-list">
      <CatalogFilters
        testId="insight-filters"
        search={params.search}
        searchPlaceholder="Search message, item or analyzer"
        keep={['sortBy', 'sortDesc', 'pageSize']}
        selects={[
          { name: 'analysisType', label: 'Type', value: params.analysisType, options: INSIGHT_TYPES },
          { name: 'severity', label: 'Severity', value: params.severity, options: SEVERITIES },
          { name: 'status', label: 'Status', value: params.status, options: INSIGHT_STATUSES },
          { name: 'analyzer', label: 'Analyzer', value: params.analyzer, options: analyzers },
        ]}
      />
      <DataTable
        data={rows}
        columns={insightColumns({ canLink, withItem })}
        getRowId={(row) => row.id}
        urlSorting={{ id: params.sortBy, desc: params.sortDesc }}
        pagination={{ page: params.page, pageCount, pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total }}
        testId="insights-table"
        rowTestId="insight-row"
        caption="Insights"
      />
    </section>
  )
}

import { Link } from '@remix-run/react'
import { X } from '#app/components/ui/icons.tsx'
import { hrefWith, INSIGHT_STATUSES, INSIGHT_TYPES, SEVERITIES, type InsightListParams } from '#app/lib/catalog-vocabulary.ts'
import { CatalogFilters } from './catalog-filters.tsx'
import type { InsightRow } from '#app/lib/catalog-vocabulary.ts'
import { InsightsTable } from './insight-columns.tsx'

/** /catalog/insights: findings with their filters; `configId` in the URL narrows to one item. */
export function InsightsList({ rows, total, params, analyzers, canLink, itemName, search }: { rows: InsightRow[]; total: number; params: InsightListParams; analyzers: string[]; canLink: boolean; itemName: string | null; search: string }) {
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="insights-list">
      <CatalogFilters
        testId="insight-filters"
        search={params.search}
        searchPlaceholder="Search message, item or analyzer"
        selects={[
          { name: 'analysisType', label: 'Type', value: params.analysisType, options: INSIGHT_TYPES },
          { name: 'severity', label: 'Severity', value: params.severity, options: SEVERITIES },
          { name: 'status', label: 'Status', value: params.status, options: INSIGHT_STATUSES },
          { name: 'analyzer', label: 'Analyzer', value: params.analyzer, options: analyzers },
        ]}
      />
      {params.configId ? (
        <Link to={hrefWith(search, { configId: null })} className="inline-flex w-fit items-center gap-1 rounded border bg-muted px-1.5 py-0.5 text-xs hover:bg-accent" data-testid="insights-item-filter">
          Item: {itemName ?? params.configId}
          <X aria-hidden="true" className="size-3" />
        </Link>
      ) : null}
      <InsightsTable rows={rows} total={total} params={params} canLink={canLink} withItem />
    </section>
  )
}

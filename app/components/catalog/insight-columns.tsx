import { Link } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { ChevronRight } from '#app/components/ui/icons.tsx'
import { CATALOG_PAGE_SIZES, type InsightRow, type InsightListParams } from '#app/lib/catalog-vocabulary.ts'
import { DateTime } from '#app/components/date-time.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { AttachEvidenceLink } from './attach-link.tsx'
import { ConfigType, SeverityBadge } from './catalog-badges.tsx'


/** The finding with its message folded under it and the way to attach it to an incident (evidence type config_analysis). */
function InsightFinding({ insight, canLink }: { insight: InsightRow; canLink: boolean }) {
  const title = insight.summary || insight.analyzer || 'Insight'
  return (
    <details data-testid="insight-details">
      <summary className="flex cursor-pointer list-none items-start gap-1 font-medium hover:underline" data-testid="insight-summary">
        <ChevronRight aria-hidden="true" className="mt-0.5 size-4 shrink-0 transition-transform [details[open]>summary>&]:rotate-90" />
        {title}
      </summary>
      <div className="mt-2 flex max-w-3xl flex-col gap-2">
        {insight.message ? <p className="whitespace-pre-wrap text-sm" data-testid="insight-message">{insight.message}</p> : null}
        <p className="text-xs text-muted-foreground">
          Analyzer {insight.analyzer ?? 'unknown'}
          {insight.source ? `, source ${insight.source}` : ''}
        </p>
        <div>
          <AttachEvidenceLink
            canLink={canLink}
            target={{ type: 'config_analysis', config_analysis_id: insight.id, description: `${insight.analyzer ?? 'Insight'} on ${insight.config_name ?? insight.config_id}: ${insight.message ?? ''}`.trim() }}
          />
        </div>
      </div>
    </details>
  )
}

export function insightColumns({ canLink, withItem }: { canLink: boolean; withItem: boolean }): UrlColumn<InsightRow>[] {
  return [
    { id: 'analyzer', header: 'Insight', enableSorting: true, cell: ({ row }) => <InsightFinding insight={row.original} canLink={canLink} /> },
    ...(withItem
      ? [
          {
            id: 'config_name',
            header: 'Item',
            enableSorting: true,
            cell: ({ row }: { row: { original: InsightRow } }) => (
              <Link to={`/catalog/${row.original.config_id}`} className="flex flex-col hover:underline" data-testid="insight-item">
                <span>{row.original.config_name ?? row.original.config_id}</span>
                <ConfigType type={row.original.config_type} className="text-xs text-muted-foreground" iconClassName="size-3" />
              </Link>
            ),
          } satisfies UrlColumn<InsightRow>,
        ]
      : []),
    { id: 'analysis_type', header: 'Type', enableSorting: true, cell: ({ row }) => <span className="whitespace-nowrap">{row.original.analysis_type}</span> },
    { id: 'severity', header: 'Severity', enableSorting: true, cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
    { id: 'status', header: 'Status', enableSorting: true, cell: ({ row }) => (row.original.status ? <Badge variant="outline">{row.original.status}</Badge> : null) },
    { id: 'first_observed', header: 'First seen', enableSorting: true, cell: ({ row }) => <DateTime value={row.original.first_observed} className="whitespace-nowrap tabular-nums" /> },
    { id: 'last_observed', header: 'Last seen', enableSorting: true, cell: ({ row }) => <DateTime value={row.original.last_observed} className="whitespace-nowrap tabular-nums" /> },
  ]
}

/** The insight table alone: sort and paging links in the URL, each finding unfolding in place. */
export function InsightsTable({ rows, total, params, canLink, withItem }: { rows: InsightRow[]; total: number; params: Pick<InsightListParams, 'sortBy' | 'sortDesc' | 'page' | 'pageSize'>; canLink: boolean; withItem: boolean }) {
  return (
    <UrlTable
      data={rows}
      columns={insightColumns({ canLink, withItem })}
      getRowId={(row) => row.id}
      urlSorting={{ id: params.sortBy, desc: params.sortDesc }}
      pagination={{ page: params.page, pageCount: Math.max(1, Math.ceil(total / params.pageSize)), pageSize: params.pageSize, pageSizes: CATALOG_PAGE_SIZES, totalRows: total }}
      testId="insights-table"
      caption="Insights"
    />
  )
}

import { Link } from '@remix-run/react'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { ChevronRight } from '#app/components/ui/icons.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { LinkToIncident } from '#app/components/incidents/attach-evidence.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { ConfigType, SeverityBadge } from './catalog-badges.tsx'

/** What an insight row shows; the loader's `InsightRow` satisfies it. */
export type InsightListItem = {
  id: string
  config_id: string
  config_name: string | null
  config_type: string | null
  analyzer: string | null
  analysis_type: string | null
  message: string | null
  summary: string | null
  severity: string | null
  status: string | null
  source: string | null
  first_observed: string | null
  last_observed: string | null
}

/** The finding with its message folded under it and the way to attach it to an incident (evidence type config_analysis). */
function InsightFinding({ insight, canLink }: { insight: InsightListItem; canLink: boolean }) {
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
          <LinkToIncident
            canLink={canLink}
            target={{ type: 'config_analysis', config_analysis_id: insight.id, description: `${insight.analyzer ?? 'Insight'} on ${insight.config_name ?? insight.config_id}: ${insight.message ?? ''}`.trim() }}
          />
        </div>
      </div>
    </details>
  )
}

export function insightColumns({ canLink, withItem }: { canLink: boolean; withItem: boolean }): DataColumn<InsightListItem>[] {
  return [
    { id: 'analyzer', header: 'Insight', accessorFn: (row) => row.analyzer, cell: ({ row }) => <InsightFinding insight={row.original} canLink={canLink} /> },
    ...(withItem
      ? [
          {
            id: 'config_name',
            header: 'Item',
            accessorFn: (row: InsightListItem) => row.config_name,
            cell: ({ row }: { row: { original: InsightListItem } }) => (
              <Link to={`/catalog/${row.original.config_id}`} className="flex flex-col hover:underline" data-testid="insight-item">
                <span>{row.original.config_name ?? row.original.config_id}</span>
                <ConfigType type={row.original.config_type} className="text-xs text-muted-foreground" iconClassName="size-3" />
              </Link>
            ),
          } satisfies DataColumn<InsightListItem>,
        ]
      : []),
    { id: 'analysis_type', header: 'Type', accessorFn: (row) => row.analysis_type, cell: ({ row }) => <span className="whitespace-nowrap">{row.original.analysis_type}</span> },
    { id: 'severity', header: 'Severity', accessorFn: (row) => row.severity, cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
    { id: 'status', header: 'Status', accessorFn: (row) => row.status, cell: ({ row }) => (row.original.status ? <Badge variant="outline">{row.original.status}</Badge> : null) },
    { id: 'first_observed', header: 'First seen', accessorFn: (row) => row.first_observed, cell: ({ row }) => <DateTime value={row.original.first_observed} className="whitespace-nowrap tabular-nums" /> },
    { id: 'last_observed', header: 'Last seen', accessorFn: (row) => row.last_observed, cell: ({ row }) => <DateTime value={row.original.last_observed} className="whitespace-nowrap tabular-nums" /> },
  ]
}

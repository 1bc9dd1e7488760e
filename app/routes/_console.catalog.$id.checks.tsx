import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { UrlTable, type UrlColumn } from '#app/components/data-table/url-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { HealthBadge, SeverityBadge } from '#app/components/catalog/catalog-badges.tsx'
import { listConfigChecks, type ConfigCheckRow } from '#app/lib/catalog-screens.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/** The item's Checks tab: the health checks linked to it, each opening its panel on /health. */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  try {
    return data({ checks: await listConfigChecks(args, args.params.id ?? '') })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

const checkHref = (check: ConfigCheckRow) => `/health?${new URLSearchParams({ checkId: check.id }).toString()}`

const columns: UrlColumn<ConfigCheckRow>[] = [
  {
    id: 'name',
    header: 'Check',
    cell: ({ row }) => (
      <Link to={checkHref(row.original)} className="font-medium hover:underline" data-testid="config-check-link">
        {row.original.name}
      </Link>
    ),
  },
  { id: 'type', header: 'Type', cell: ({ row }) => row.original.type },
  { id: 'status', header: 'Status', cell: ({ row }) => <HealthBadge health={row.original.status} /> },
  { id: 'severity', header: 'Severity', cell: ({ row }) => <SeverityBadge severity={row.original.severity} /> },
  { id: 'last_runtime', header: 'Last run', cell: ({ row }) => <DateTime value={row.original.last_runtime} className="whitespace-nowrap tabular-nums" /> },
]

export default function CatalogItemChecksRoute() {
  const { checks } = useLoaderData<typeof loader>()
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="config-checks">
      <UrlTable data={checks} columns={columns} getRowId={(row) => row.id} rowHref={checkHref} testId="config-checks-table" caption="Health checks of this item" />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

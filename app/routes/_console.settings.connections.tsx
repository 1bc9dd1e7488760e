import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import { describeConnectionType, maskConnectionUrl } from '#app/components/connections/connection-display.ts'
import type { DataColumn } from '#app/components/data-table/data-table.tsx'
import { DateTime } from '#app/components/date-time.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { Icon } from '#app/components/ui/icons.tsx'
import type { IconName } from '#app/components/ui/icon-names.ts'
import { hasAccess } from '#app/lib/access.ts'
import { listConnections, parseConnectionListParams, type ConnectionListRow } from '#app/lib/connections.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { toErrorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'
import { listVisibleConnectionTypes } from '#contract/connections/connection-types.ts'

export const handle = { title: 'Connections', feature: 'settings.connections', resource: 'connections' } satisfies RouteHandle

/** /settings/connections (spec 001 §3): every live connection, searched by name and filtered by type in the URL. */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireSettingsAccess(args, handle)
  const params = parseConnectionListParams(new URL(args.request.url).searchParams)
  const { toast, headers } = readToast(args.request)
  try {
    const { rows, total } = await listConnections(args, params)
    // Named, drawn and masked here: the type catalogue stays out of the page's JavaScript.
    const shown = rows.map((row) => ({ ...row, url: maskConnectionUrl(row.url), typeShown: describeConnectionType(row.type) }))
    const typeOptions = listVisibleConnectionTypes().map((definition) => ({ value: definition.type, label: definition.displayName }))
    return data({ rows: shown, total, params, typeOptions, toast, canWrite: hasAccess(session, 'connections', 'write') }, { headers })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

type ShownConnection = ConnectionListRow & { typeShown: { label: string; icon: IconName } }

const columns: DataColumn<ShownConnection>[] = [
  {
    id: 'name',
    header: 'Name',
    enableSorting: false,
    cell: ({ row }) => (
      <Link to={`/settings/connections/${row.original.id}`} className="font-medium hover:underline" data-testid="connection-link">
        {row.original.name}
      </Link>
    ),
  },
  {
    id: 'type',
    header: 'Type',
    enableSorting: false,
    cell: ({ row }) => {
      const type = row.original.typeShown
      return (
        <span className="flex items-center gap-1.5 whitespace-nowrap" data-testid="connection-type">
          <Icon name={type.icon} aria-hidden="true" className="size-4 text-muted-foreground" />
          {type.label}
        </span>
      )
    },
  },
  { id: 'namespace', header: 'Namespace', enableSorting: false, cell: ({ row }) => <span data-testid="connection-namespace">{row.original.namespace}</span> },
  {
    id: 'url',
    header: 'URL',
    enableSorting: false,
    cell: ({ row }) => (
      <span className="block max-w-md truncate font-mono text-xs" data-testid="connection-url">
        {row.original.url}
      </span>
    ),
  },
  { id: 'created_at', header: 'Created', enableSorting: false, cell: ({ row }) => <DateTime value={row.original.created_at} className="whitespace-nowrap tabular-nums" /> },
]

export default function ConnectionsRoute() {
  const { rows, total, params, typeOptions, toast, canWrite } = useLoaderData<typeof loader>()
  return (
    <ListPage
      testId="connections-page"
      description={total > rows.length ? `The first ${rows.length} of ${total} connections.` : 'Credentials and endpoints that checks, scrapers, playbooks and notifications use.'}
      addAction={canWrite ? { label: 'Add Connection', to: '/settings/connections/new', testId: 'connection-add' } : null}
      filterBar={
        <CatalogFilters
          testId="connection-filters"
          search={params.search}
          searchPlaceholder="Search by name"
          selects={[{ name: 'type', label: 'Type', value: params.type, options: typeOptions, allLabel: 'All types' }]}
        />
      }
      table={{ data: rows, columns, getRowId: (row) => row.id, rowHref: (row) => `/settings/connections/${row.id}`, testId: 'connections-table', rowTestId: 'connection-row' }}
      toast={toast}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import type { LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { getSettingsTable } from '#app/lib/navigation.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'label' in data && typeof data.label === 'string' ? data.label : 'Settings'),
} satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const table = getSettingsTable(args.params.table)
  if (!table) throw errorResponse(404, { message: 'No such settings page' })
  await requireAccess(args, table)
  return { table: args.params.table!, label: table.label, id: args.params.id ?? '' }
}

export default function SettingsResourceRoute() {
  const { table, label, id } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col">
      <nav aria-label="Breadcrumb" className="px-6 pt-4 text-sm text-muted-foreground">
        <ol className="flex items-center gap-1.5">
          <li>
            <Link to={`/settings/${table}`} className="hover:text-foreground hover:underline">
              {label}
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="truncate font-mono text-xs text-foreground">
            {id}
          </li>
        </ol>
      </nav>
      <NotBuilt title={`${label}: ${id}`} capability="The spec editor for this resource, with its job history; resources not created in the UI show where they came from." />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

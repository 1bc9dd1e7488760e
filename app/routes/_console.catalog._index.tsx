import type { LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FigureGrid } from '#app/components/figure-grid.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { getCatalogFigures } from '#app/lib/catalog.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return getCatalogFigures(args)
}

export default function CatalogRoute() {
  const { items, unhealthy, changes } = useLoaderData<typeof loader>()
  return (
    <NotBuilt
      title="Catalog"
      capability="The configuration catalog: every scraped item grouped by type, with its health, status, labels, cost and latest changes."
    >
      <FigureGrid
        label="Catalog right now"
        figures={[
          { label: 'Config items', value: items, testId: 'figure-config-items' },
          { label: 'Unhealthy items', value: unhealthy, tone: unhealthy ? 'danger' : 'default', testId: 'figure-unhealthy-items' },
          { label: 'Recorded changes', value: changes, testId: 'figure-changes' },
        ]}
      />
    </NotBuilt>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

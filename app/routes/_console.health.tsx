import type { LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FigureGrid } from '#app/components/figure-grid.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { countRows } from '#app/lib/live-figures.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Health', feature: 'health', resource: 'canaries' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const [checks, unhealthy, canaries] = await Promise.all([
    countRows(args, 'checks', 'select=id&deleted_at=is.null'),
    countRows(args, 'checks', 'select=id&deleted_at=is.null&status=eq.unhealthy'),
    countRows(args, 'canaries', 'select=id&deleted_at=is.null'),
  ])
  return { checks, unhealthy, canaries }
}

export default function HealthRoute() {
  const { checks, unhealthy, canaries } = useLoaderData<typeof loader>()
  const healthy = checks !== null && unhealthy !== null ? checks - unhealthy : null
  return (
    <NotBuilt
      title="Health"
      capability="Every health check as a card or table row with its status, uptime and latency, grouped and filtered by namespace, labels and status, with the check detail one click away."
    >
      <FigureGrid
        label="Health checks right now"
        figures={[
          { label: 'Checks', value: checks, testId: 'figure-checks' },
          { label: 'Healthy', value: healthy, tone: 'success', testId: 'figure-healthy' },
          { label: 'Unhealthy', value: unhealthy, tone: unhealthy ? 'danger' : 'default', testId: 'figure-unhealthy' },
          { label: 'Canaries', value: canaries, testId: 'figure-canaries' },
        ]}
      />
    </NotBuilt>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

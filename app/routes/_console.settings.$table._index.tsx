import type { LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { FigureGrid } from '#app/components/figure-grid.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { countRows } from '#app/lib/live-figures.server.ts'
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
  const total = await countRows(args, args.params.table!, 'select=id&deleted_at=is.null')
  return { label: table.label, total }
}

export default function SettingsTableRoute() {
  const { label, total } = useLoaderData<typeof loader>()
  return (
    <NotBuilt title={label} capability={`The ${label.toLowerCase()} list (up to 100 at a time) with their source and last update, and a form to add one.`}>
      <FigureGrid label={`${label} right now`} figures={[{ label, value: total, testId: 'figure-total' }]} />
    </NotBuilt>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

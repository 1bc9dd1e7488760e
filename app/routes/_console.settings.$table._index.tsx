import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { ListPage } from '#app/components/list-page/list-page.tsx'
import { resourceListTable } from '#app/components/resource-editor/resource-list.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { listResources } from '#app/lib/resource-editor.server.ts'
import { getEditorKind, parseResourceListSearch, type ResourceRow } from '#app/lib/resource-editor.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'label' in data && typeof data.label === 'string' ? data.label : 'Settings'),
} satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const kind = getEditorKind(args.params.table)
  if (!kind) throw errorResponse(404, { message: 'No such settings page' })
  const session = await requireSettingsAccess(args, { feature: kind.feature, resource: kind.resource })
  const { toast, headers } = readToast(args.request)
  const search = parseResourceListSearch(kind, new URL(args.request.url).searchParams)
  let rows: ResourceRow[] = []
  let total = 0
  let loadError: string | null = null
  try {
    const page = await listResources(args, kind, search)
    rows = page.rows
    total = page.total
    search.page = page.page
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    loadError = error.message
  }
  return data(
    { table: kind.table, label: kind.label, kind, rows, total, search, loadError, toast, canWrite: hasAccess(session, kind.resource, 'write'), now: new Date().toISOString() },
    { headers },
  )
}

export default function SettingsTableRoute() {
  const { kind, rows, total, search, loadError, toast, canWrite, now } = useLoaderData<typeof loader>()
  return (
    <ListPage
      testId="resource-list-page"
      description="Resources not created here are read-only."
      addAction={canWrite ? { label: `Add ${kind.singular}`, to: `/settings/${kind.table}/new`, testId: 'resource-add' } : null}
      errors={[loadError]}
      table={resourceListTable({ kind, rows, total, search, now })}
      toast={toast}
    />
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

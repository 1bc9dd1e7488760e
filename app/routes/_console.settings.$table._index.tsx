import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { Plus } from '#app/components/ui/icons.tsx'
import { requireSettingsAccess } from '#app/components/access/require-settings-access.server.ts'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { ResourceList } from '#app/components/resource-editor/resource-list.tsx'
import { Toast } from '#app/components/toast.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { GatewayError } from '#app/lib/gateway.server.ts'
import { getEditorKind, SETTINGS_LIST_LIMIT, type ResourceRow } from '#app/lib/resource-editor.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse } from '#app/lib/session.server.ts'
import { readToast } from '#app/lib/toast.server.ts'
import { listResources } from '#app/lib/resource-editor.server.ts'

export const handle = {
  title: (data) => (data && typeof data === 'object' && 'label' in data && typeof data.label === 'string' ? data.label : 'Settings'),
} satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  const kind = getEditorKind(args.params.table)
  if (!kind) throw errorResponse(404, { message: 'No such settings page' })
  const session = await requireSettingsAccess(args, { feature: kind.feature, resource: kind.resource })
  const { toast, headers } = readToast(args.request)
  let rows: ResourceRow[] = []
  let loadError: string | null = null
  try {
    rows = await listResources(args, kind)
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    loadError = error.message
  }
  return data(
    { table: kind.table, label: kind.label, kind, rows, loadError, toast, canWrite: hasAccess(session, kind.resource, 'write'), now: new Date().toISOString() },
    { headers },
  )
}

export default function SettingsTableRoute() {
  const { kind, label, rows, loadError, toast, canWrite, now } = useLoaderData<typeof loader>()
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="resource-list-page" data-table={kind.table}>
      <div className="flex items-center justify-between gap-4">
        <p className="text-sm text-muted-foreground">
          {label}: the newest {SETTINGS_LIST_LIMIT} at most. Resources not created here are read-only.
        </p>
        {canWrite ? (
          <Link to={`/settings/${kind.table}/new`} className={buttonVariants({ size: 'sm' })} data-testid="resource-add">
            <Plus aria-hidden="true" />
            Add {kind.singular}
          </Link>
        ) : null}
      </div>
      <InlineError message={loadError} />
      <ResourceList kind={kind} rows={rows} now={now} />
      <Toast message={toast} />
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

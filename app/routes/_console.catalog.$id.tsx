import type { LoaderFunctionArgs } from '@remix-run/node'
import { NavLink, Outlet, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { cn } from '#app/lib/cn.ts'
import { getConfigSummary } from '#app/lib/catalog.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { errorResponse, requireAccess } from '#app/lib/session.server.ts'
import { isUuid } from '#contract/uuid.ts'

export const handle = { title: 'Catalog', feature: 'config', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const id = args.params.id ?? ''
  // Config ids are UUIDs; anything else cannot exist, and must not reach a filter expression.
  if (!isUuid(id)) throw errorResponse(404, { message: 'No such catalog item' })
  const item = await getConfigSummary(args, id)
  // An unreadable data API still shows the page (by id); no row means the item does not exist.
  if (item === null) throw errorResponse(404, { message: 'No such catalog item' })
  return { id, item: item ?? null }
}

const TABS = [
  { to: '.', label: 'Spec', end: true },
  { to: 'changes', label: 'Changes' },
  { to: 'insights', label: 'Insights' },
  { to: 'relationships', label: 'Relationships' },
  { to: 'playbooks', label: 'Playbooks' },
  { to: 'checks', label: 'Checks' },
]

const HEALTH_TONE: Record<string, 'success' | 'danger' | 'warning'> = { healthy: 'success', unhealthy: 'danger', warning: 'warning' }

export default function CatalogItemLayout() {
  const { id, item } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col">
      <div className="flex flex-col gap-2 border-b bg-card px-6 pt-4">
        <div className="flex items-center gap-2">
          <h2 className="text-base font-semibold">{item?.name ?? id}</h2>
          {item?.type ? <Badge variant="secondary">{item.type}</Badge> : null}
          {item?.health ? <Badge variant={HEALTH_TONE[item.health] ?? 'outline'}>{item.health}</Badge> : null}
        </div>
        <nav aria-label="Catalog item sections">
          <ul className="-mb-px flex gap-1">
            {TABS.map((tab) => (
              <li key={tab.label}>
                <NavLink
                  to={tab.to}
                  end={tab.end}
                  className={({ isActive }) =>
                    cn(
                      'inline-flex h-9 items-center border-b-2 border-transparent px-3 text-sm text-muted-foreground hover:text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                      isActive && 'border-primary font-medium text-foreground',
                    )
                  }
                >
                  {tab.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <Outlet />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

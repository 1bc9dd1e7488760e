import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData, useLocation } from '@remix-run/react'
import { RelationshipTree } from '#app/components/catalog/relationship-tree.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { cn } from '#app/lib/cn.ts'
import { parseRelationshipParams } from '#app/lib/catalog-search.ts'
import { getRelationships } from '#app/lib/catalog-screens.server.ts'
import { buildRelationshipTree, hrefWith, RELATIONSHIP_DEPTHS, RELATIONSHIP_DIRECTIONS } from '#app/lib/catalog-vocabulary.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/**
 * The item's Relationships tab: what points at it (incoming) and what it points at (outgoing),
 * each walked `depth` steps (at most 10, spec 000 §9) and shown as a tree. Direction and depth
 * are links in the URL.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const id = args.params.id ?? ''
  const params = parseRelationshipParams(new URL(args.request.url).searchParams)
  try {
    const { incoming, outgoing } = await getRelationships(args, id, params.direction, params.depth)
    return data({
      params,
      incoming: incoming ? buildRelationshipTree(id, incoming) : null,
      outgoing: outgoing ? buildRelationshipTree(id, outgoing) : null,
    })
  } catch (error) {
    throw toErrorResponse(error)
  }
}

function Choice({ to, current, label, testId }: { to: string; current: boolean; label: string; testId: string }) {
  return (
    <Link to={to} preventScrollReset replace aria-current={current ? 'true' : undefined} className={cn('rounded-md border px-2 py-1', current ? 'bg-accent font-medium' : 'bg-card')} data-testid={testId}>
      {label}
    </Link>
  )
}

export default function CatalogItemRelationshipsRoute() {
  const { params, incoming, outgoing } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="config-relationships">
      <div className="flex flex-wrap items-center gap-6 text-sm">
        <div className="flex items-center gap-1" role="group" aria-label="Direction">
          <span className="mr-1 text-muted-foreground">Direction</span>
          {RELATIONSHIP_DIRECTIONS.map((direction) => (
            <Choice key={direction} to={hrefWith(search, { direction })} current={params.direction === direction} label={direction} testId={`direction-${direction}`} />
          ))}
        </div>
        <div className="flex items-center gap-1" role="group" aria-label="Depth">
          <span className="mr-1 text-muted-foreground">Depth</span>
          {RELATIONSHIP_DEPTHS.map((depth) => (
            <Choice key={depth} to={hrefWith(search, { depth: String(depth) })} current={params.depth === depth} label={String(depth)} testId={`depth-${depth}`} />
          ))}
        </div>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        {incoming ? <RelationshipTree title="Incoming" root={incoming.root} detached={incoming.detached} testId="relationships-incoming" /> : null}
        {outgoing ? <RelationshipTree title="Outgoing" root={outgoing.root} detached={outgoing.detached} testId="relationships-outgoing" /> : null}
      </div>
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

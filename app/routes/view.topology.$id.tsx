import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import { PublicFrame } from '#app/components/public-frame.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

// A wall screen: plain HTML, no client JavaScript (decision 014).
export const handle = { title: 'Topology', hydrate: false } satisfies RouteHandle

export default function PublicTopologyRoute() {
  const { id } = useParams()
  return (
    <PublicFrame>
      <NotBuilt title={`Topology ${id ?? ''}`.trim()} capability="A public, read-only view of one topology component and its children, for wall screens." />
    </PublicFrame>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

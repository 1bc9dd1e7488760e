import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { PublicFrame } from '#app/components/public-frame.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'

export const handle = { title: 'Health' } satisfies RouteHandle

export default function PublicHealthRoute() {
  return (
    <PublicFrame>
      <NotBuilt title="Health" capability="A public, read-only board of health checks for wall screens, without the console around it." />
    </PublicFrame>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

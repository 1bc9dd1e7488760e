import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Jobs History', feature: 'settings.job_history', resource: 'database' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function JobsHistoryRoute() {
  return <NotBuilt title="Jobs History" capability="The history of background jobs with their status, duration and errors, filterable by status, time, duration, resource type and name." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

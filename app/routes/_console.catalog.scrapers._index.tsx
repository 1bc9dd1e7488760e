import type { LoaderFunctionArgs } from '@remix-run/node'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Scrapers', feature: 'settings.config_scraper', resource: 'config_scrapers' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogScrapersRoute() {
  return <NotBuilt title="Catalog Scrapers" capability="The config scrapers that feed the catalog, with their schedule, last run and a way to add one." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

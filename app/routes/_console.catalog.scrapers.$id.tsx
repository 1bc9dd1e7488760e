import type { LoaderFunctionArgs } from '@remix-run/node'
import { useParams } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { NotBuilt } from '#app/components/not-built.tsx'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Catalog Scraper', feature: 'settings.config_scraper', resource: 'config_scrapers' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  return null
}

export default function CatalogScraperRoute() {
  const { id } = useParams()
  return <NotBuilt title={`Catalog Scraper ${id ?? ''}`} capability="One config scraper: its spec editor and its job history." />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

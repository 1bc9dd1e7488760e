import type { LoaderFunctionArgs } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { Badge } from '#app/components/ui/badge.tsx'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '#app/components/ui/table.tsx'
import { getDisabledFeatures } from '#app/lib/features.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { getProperties, requireAccess } from '#app/lib/session.server.ts'

export const handle = { title: 'Feature Flags', feature: 'settings.feature_flags', resource: 'feature_flags' } satisfies RouteHandle

export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const properties = await getProperties(args)
  const rows = properties
    .filter((property) => typeof property?.name === 'string')
    .map((property) => {
      const extra = property as { source?: unknown; description?: unknown }
      return {
        name: property.name,
        value: typeof property.value === 'string' ? property.value : JSON.stringify(property.value ?? null),
        source: typeof extra.source === 'string' ? extra.source : '',
        description: typeof extra.description === 'string' ? extra.description : '',
      }
    })
    .sort((a, b) => a.name.localeCompare(b.name))
  return { rows, disabled: getDisabledFeatures(properties) }
}

export default function FeatureFlagsRoute() {
  const { rows, disabled } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col gap-4 p-6">
      <section aria-labelledby="disabled-features" className="flex flex-col gap-2">
        <h2 id="disabled-features" className="text-sm font-semibold">
          Disabled features
        </h2>
        {disabled.length ? (
          <ul className="flex flex-wrap gap-1.5">
            {disabled.map((feature) => (
              <li key={feature}>
                <Badge variant="warning">{feature}</Badge>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-muted-foreground">Every feature is enabled.</p>
        )}
      </section>
      <section aria-labelledby="properties-title" className="flex flex-col gap-2">
        <h2 id="properties-title" className="text-sm font-semibold">
          Properties
        </h2>
        <div className="rounded-lg border bg-card">
          <Table data-testid="properties-table">
            <TableHeader>
              <TableRow>
                <TableHead>Name</TableHead>
                <TableHead>Value</TableHead>
                <TableHead>Source</TableHead>
                <TableHead>Description</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.length ? (
                rows.map((row) => (
                  <TableRow key={`${row.source}:${row.name}`}>
                    <TableCell className="font-mono text-xs">{row.name}</TableCell>
                    <TableCell className="font-mono text-xs">{row.value}</TableCell>
                    <TableCell>{row.source}</TableCell>
                    <TableCell className="text-muted-foreground">{row.description}</TableCell>
                  </TableRow>
                ))
              ) : (
                <TableRow>
                  <TableCell colSpan={4} className="py-6 text-center text-muted-foreground">
                    No data available
                  </TableCell>
                </TableRow>
              )}
            </TableBody>
          </Table>
        </div>
        <p className="text-xs text-muted-foreground">Adding and editing properties is not built yet.</p>
      </section>
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

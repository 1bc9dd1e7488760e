import type { LoaderFunctionArgs } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { stringify } from 'yaml'
import { JsonTree } from '#app/components/catalog/json-tree.tsx'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { cn } from '#app/lib/cn.ts'
import { parseSpecFormat } from '#app/lib/catalog-search.ts'
import { getConfigDocument } from '#app/lib/catalog-screens.server.ts'
import { SPEC_FORMATS } from '#app/lib/catalog-vocabulary.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { feature: 'config', resource: 'database' } satisfies RouteHandle

/**
 * The Spec tab: the item's scraped document as a collapsible JSON tree, or as YAML folded by its
 * top-level keys (`?format=yaml`). Both are `<details>`, so they fold without JavaScript; the
 * YAML is written on the server, so the page ships no YAML library.
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const format = parseSpecFormat(new URL(args.request.url).searchParams)
  try {
    const document = await getConfigDocument(args, args.params.id ?? '')
    if (format === 'json') return { format, document, sections: [] }
    const isObject = document !== null && typeof document === 'object' && !Array.isArray(document)
    const sections = isObject ? Object.entries(document as Record<string, unknown>).map(([key, value]) => ({ key, text: stringify({ [key]: value }).trimEnd() })) : [{ key: '', text: stringify(document).trimEnd() }]
    return { format, document: null, sections }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function CatalogItemSpecRoute() {
  const { format, document, sections } = useLoaderData<typeof loader>()
  return (
    <section className="flex flex-col gap-3 p-6" data-testid="config-spec">
      <div className="flex items-center gap-1 text-sm" role="group" aria-label="Format">
        {SPEC_FORMATS.map((option) => (
          <Link
            key={option}
            to={`?format=${option}`}
            preventScrollReset
            aria-current={option === format ? 'true' : undefined}
            className={cn('rounded-md border px-2 py-1 uppercase', option === format ? 'bg-accent font-medium' : 'bg-card')}
            data-testid={`spec-format-${option}`}
          >
            {option}
          </Link>
        ))}
      </div>
      {format === 'json' ? (
        document === null ? (
          <p className="text-sm text-muted-foreground">No configuration was scraped for this item.</p>
        ) : (
          <JsonTree value={document} />
        )
      ) : (
        <div className="flex flex-col gap-1 rounded-md border bg-card p-3 font-mono text-xs" data-testid="config-yaml">
          {sections.map((section) => (
            <details key={section.key} open>
              <summary className="cursor-pointer hover:bg-muted">{section.key || 'document'}</summary>
              <pre className="overflow-x-auto whitespace-pre pl-4">{section.text}</pre>
            </details>
          ))}
        </div>
      )}
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

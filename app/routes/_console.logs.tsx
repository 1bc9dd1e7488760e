import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import { useEffect, useState } from 'react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import { LogList } from '#app/components/logs/log-list.tsx'
import { LOG_LIMITS, LOG_RANGES, sourceValue } from '#app/components/logs/log-vocabulary.ts'
import { Button } from '#app/components/ui/button.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { Label } from '#app/components/ui/label.tsx'
import { parseLogPageSearch } from '#app/lib/log-search-params.ts'
import { listLogSources, logSearchBody, searchLogs } from '#app/lib/logs.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Logs', feature: 'logs', resource: 'logging_backends' } satisfies RouteHandle

const PAGE = '/logs'

/**
 * /logs: a search of one log backend, or of a component's log selectors, over a time range with
 * labels and a text query (`POST /api/logs`). Everything is in the URL, so a search is a link;
 * the filter narrows the lines shown (on the server without JavaScript, as one types with it).
 */
export async function loader(args: LoaderFunctionArgs) {
  await requireAccess(args, handle)
  const search = parseLogPageSearch(new URL(args.request.url).searchParams)
  try {
    const sources = await listLogSources(args)
    if (!search.source) return { search, sources, lines: null, error: null, now: new Date().toISOString() }
    const { body, problem } = logSearchBody(search.source, search)
    if (problem) return { search, sources, lines: null, error: problem, now: new Date().toISOString() }
    const result = await searchLogs(args, body)
    return {
      search,
      sources,
      lines: 'answer' in result ? result.answer.results : null,
      error: 'error' in result ? result.error : null,
      now: new Date().toISOString(),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function LogsRoute() {
  const { search, sources, lines, error, now } = useLoaderData<typeof loader>()
  // The filter narrows what is already loaded; typing never reloads the page.
  const [filter, setFilter] = useState(search.filter)
  useEffect(() => setFilter(search.filter), [search.filter])
  const select = 'flex h-8 rounded-md border border-input bg-card px-2 text-sm'
  const chosen = sourceValue(search.source)
  return (
    <section className="flex flex-col gap-4 p-6" data-testid="logs-page">
      <p className="text-sm text-muted-foreground">Search the log backends by backend or by a component&apos;s log selectors.</p>
      <Form method="get" action={PAGE} className="flex flex-wrap items-end gap-3" data-testid="logs-form" key={`${chosen}|${search.range}|${search.labels}|${search.query}|${search.limit}`}>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-source">Source</Label>
          <select id="logs-source" name="source" defaultValue={chosen} required className={select} data-testid="logs-source">
            <option value="">Choose a backend or component</option>
            {sources.backends.length > 0 ? (
              <optgroup label="Log backends">
                {sources.backends.map((backend) => (
                  <option key={backend.name} value={`backend:${backend.name}`}>
                    {backend.name}
                  </option>
                ))}
              </optgroup>
            ) : null}
            {sources.components.length > 0 ? (
              <optgroup label="Components">
                {sources.components.map((component) => (
                  <option key={component.id} value={`component:${component.id}`}>
                    {component.name}
                    {component.type ? ` (${component.type})` : ''}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-range">Time range</Label>
          <select id="logs-range" name="range" defaultValue={search.range} className={select} data-testid="logs-range">
            {LOG_RANGES.map(([range, label]) => (
              <option key={range} value={range}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="flex min-w-48 flex-col gap-1">
          <Label htmlFor="logs-labels">Labels</Label>
          <Input id="logs-labels" name="labels" compact defaultValue={search.labels} placeholder="app=web, level=error" maxLength={1000} data-testid="logs-labels" />
        </div>
        <div className="flex min-w-56 flex-1 flex-col gap-1">
          <Label htmlFor="logs-query">Query</Label>
          <Input id="logs-query" name="query" compact defaultValue={search.query} placeholder="Text the lines contain" maxLength={1000} data-testid="logs-query" />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-limit">Lines</Label>
          <select id="logs-limit" name="limit" defaultValue={String(search.limit)} className={select} data-testid="logs-limit">
            {LOG_LIMITS.map((limit) => (
              <option key={limit} value={limit}>
                {limit}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="logs-filter">Filter</Label>
          <Input
            id="logs-filter"
            name="filter"
            type="search"
            compact
            value={filter}
            onChange={(event) => setFilter(event.currentTarget.value)}
            placeholder="Narrow the lines shown"
            maxLength={200}
            data-testid="logs-filter"
          />
        </div>
        <Button type="submit" size="sm" data-testid="logs-search">
          Search
        </Button>
      </Form>
      <InlineError message={error} />
      {lines ? <LogList lines={lines} filter={filter} now={now} /> : null}
      {!search.source && !error ? (
        <p className="rounded-md border bg-card p-6 text-center text-sm text-muted-foreground" data-testid="logs-prompt">
          {sources.backends.length === 0 && sources.components.length === 0 ? 'No log backends yet: add one under Settings › Log Backends.' : 'Choose a log backend or a component to search its logs.'}
        </p>
      ) : null}
    </section>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

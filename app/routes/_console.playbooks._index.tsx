import type { LoaderFunctionArgs } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { GeneralErrorBoundary } from '#app/components/error-boundary.tsx'
import { runDialogHref } from '#app/components/playbooks/playbook-links.ts'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Play, Plus, Search, Workflow } from '#app/components/ui/icons.tsx'
import { Input } from '#app/components/ui/input.tsx'
import { hasAccess } from '#app/lib/access.ts'
import { listPlaybooks } from '#app/lib/playbooks.server.ts'
import type { RouteHandle } from '#app/lib/route-handle.ts'
import { requireAccess, toErrorResponse } from '#app/lib/session.server.ts'

export const handle = { title: 'Playbooks', feature: 'playbooks', resource: 'playbooks' } satisfies RouteHandle

/** /playbooks (issue 16 item 6): the catalogue grouped by category, searched through `?q=`. */
export async function loader(args: LoaderFunctionArgs) {
  const session = await requireAccess(args, handle)
  const query = (new URL(args.request.url).searchParams.get('q') ?? '').slice(0, 200)
  try {
    const playbooks = await listPlaybooks(args, query)
    const groups = new Map<string, typeof playbooks>()
    for (const playbook of playbooks) {
      const category = playbook.category || 'Uncategorised'
      groups.set(category, [...(groups.get(category) ?? []), playbook])
    }
    return {
      query,
      groups: [...groups.entries()].map(([category, rows]) => ({
        category,
        playbooks: rows.map((row) => ({
          id: row.id,
          name: row.name,
          namespace: row.namespace,
          title: row.title || row.name,
          description: row.description || (typeof row.spec === 'object' && row.spec && 'description' in row.spec ? String(row.spec.description ?? '') : ''),
          parameters: row.spec?.parameters?.length ?? 0,
          approval: Boolean(row.spec?.approval?.approvers?.people?.length || row.spec?.approval?.approvers?.teams?.length),
          source: row.source,
        })),
      })),
      total: playbooks.length,
      canRun: hasAccess(session, 'playbook_runs', 'write'),
      canCreate: hasAccess(session, 'playbooks', 'write'),
    }
  } catch (error) {
    throw toErrorResponse(error)
  }
}

export default function PlaybooksRoute() {
  const { query, groups, total, canRun, canCreate } = useLoaderData<typeof loader>()
  return (
    <div className="flex flex-col gap-4 p-6" data-testid="playbooks-page">
      <header className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h1 className="text-lg font-semibold">Playbooks</h1>
          <p className="text-sm text-muted-foreground">
            {total} playbooks ·{' '}
            <Link to="/playbooks/runs" className="hover:underline" data-testid="playbooks-runs-link">
              All runs
            </Link>
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Form method="get" role="search" className="flex items-center gap-2">
            <div className="w-64">
              <Input type="search" name="q" defaultValue={query} placeholder="Search playbooks" aria-label="Search playbooks" data-testid="playbooks-search" />
            </div>
            <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="playbooks-search-submit">
              <Search aria-hidden="true" />
              Search
            </button>
          </Form>
          {canCreate ? (
            <Link to="/playbooks/new" className={buttonVariants({ size: 'sm' })} data-testid="playbooks-new">
              <Plus aria-hidden="true" />
              New playbook
            </Link>
          ) : null}
        </div>
      </header>
      {groups.length === 0 ? (
        <p className="rounded-md border bg-card p-6 text-center text-sm text-muted-foreground" data-testid="playbooks-empty">
          {query ? 'No playbooks match this search.' : 'No data available'}
        </p>
      ) : null}
      {groups.map((group) => (
        <section key={group.category} className="flex flex-col gap-2" data-testid="playbook-category" data-category={group.category}>
          <h2 className="text-sm font-semibold text-muted-foreground">{group.category}</h2>
          <ul className="grid gap-3 md:grid-cols-2 xl:grid-cols-3">
            {group.playbooks.map((playbook) => (
              <li key={playbook.id} className="flex flex-col gap-2 rounded-md border bg-card p-4" data-testid="playbook-card" data-playbook-id={playbook.id} data-playbook-name={playbook.name}>
                <div className="flex items-start gap-2">
                  <Workflow aria-hidden="true" className="mt-0.5 size-4 text-muted-foreground" />
                  <div className="flex min-w-0 flex-1 flex-col">
                    <h3 className="truncate font-medium" data-testid="playbook-title">
                      {playbook.title}
                    </h3>
                    <span className="truncate text-xs text-muted-foreground">
                      {playbook.namespace}/{playbook.name}
                    </span>
                  </div>
                </div>
                {playbook.description ? <p className="line-clamp-2 text-sm text-muted-foreground">{playbook.description}</p> : null}
                <p className="text-xs text-muted-foreground">
                  {playbook.parameters ? `${playbook.parameters} parameters` : 'No parameters'}
                  {playbook.approval ? ' · needs approval' : ''}
                </p>
                <div className="mt-auto flex flex-wrap gap-2">
                  {canRun ? (
                    <Link to={runDialogHref(playbook.id, {}, '/playbooks' + (query ? `?${new URLSearchParams({ q: query }).toString()}` : ''))} className={buttonVariants({ size: 'sm' })} data-testid="playbook-run">
                      <Play aria-hidden="true" />
                      Run
                    </Link>
                  ) : null}
                  <Link to={`/playbooks/runs?${new URLSearchParams({ playbook: playbook.id }).toString()}`} className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="playbook-runs">
                    Runs
                  </Link>
                  {canCreate && playbook.source === 'UI' ? (
                    <Link to={`/playbooks/${playbook.id}/edit`} className={buttonVariants({ variant: 'ghost', size: 'sm' })} data-testid="playbook-edit">
                      Edit
                    </Link>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}

import { Form, Link, useLocation } from '@remix-run/react'
import { formatDuration, formatSize } from '#contract/canary/duration.ts'
import { Button } from '#app/components/ui/button.tsx'
import { InlineError } from '#app/components/inline-error.tsx'
import type { ViewColumnInfo, ViewPageData } from '#app/lib/views.server.ts'
import { VIEW_PAGE_SIZE } from '#app/lib/views.shared.ts'
import { ViewPanels } from './view-panels.tsx'

/**
 * A custom view's screen: its variables as a GET form (so it works without JavaScript), its
 * panels, and its table with cells drawn by column type, sorted and paged through the URL.
 */

const HEALTH_CLASS: Record<string, string> = {
  healthy: 'text-green-700 dark:text-green-400',
  unhealthy: 'text-red-700 dark:text-red-400',
  warning: 'text-amber-700 dark:text-amber-400',
}

function Cell({ column, value, row }: { column: ViewColumnInfo; value: unknown; row: Record<string, unknown> }) {
  if (value === null || value === undefined || value === '') return <span className="text-muted-foreground">—</span>
  switch (column.type) {
    case 'health':
    case 'status': {
      const text = String(value)
      return (
        <span className={`inline-flex items-center gap-1.5 ${HEALTH_CLASS[text.toLowerCase()] ?? ''}`}>
          <span className="inline-block size-2 rounded-full bg-current" aria-hidden />
          {text}
        </span>
      )
    }
    case 'bytes':
      return <span className="tabular-nums">{formatSize(Number(value))}</span>
    case 'duration':
      return <span className="tabular-nums">{formatDuration(Number(value) / 1e6)}</span>
    case 'millicore':
      return <span className="tabular-nums">{Number(value).toLocaleString('en')}m</span>
    case 'number':
    case 'decimal':
      return <span className="tabular-nums">{Number(value).toLocaleString('en', { maximumFractionDigits: 4 })}{column.unit ? ` ${column.unit}` : ''}</span>
    case 'gauge': {
      const max = Number(column.gauge?.max ?? 100)
      const min = Number(column.gauge?.min ?? 0)
      const ratio = Math.min(1, Math.max(0, (Number(value) - min) / (max - min || 1)))
      return (
        <span className="inline-flex items-center gap-2">
          <svg width="60" height="8" aria-hidden>
            <rect width="60" height="8" rx="2" fill="currentColor" fillOpacity="0.12" />
            <rect width={60 * ratio} height="8" rx="2" fill={ratio > 0.85 ? '#dc2626' : ratio > 0.7 ? '#f59e0b' : '#16a34a'} />
          </svg>
          <span className="tabular-nums">{Number(value).toLocaleString('en', { maximumFractionDigits: 1 })}{column.unit ?? ''}</span>
        </span>
      )
    }
    case 'boolean':
      return <span>{value === true || value === 'true' ? 'Yes' : 'No'}</span>
    case 'datetime': {
      const date = new Date(String(value))
      return Number.isNaN(date.getTime()) ? <span>{String(value)}</span> : <time dateTime={date.toISOString()}>{date.toISOString().replace('T', ' ').slice(0, 16)} UTC</time>
    }
    case 'labels': {
      const entries = value && typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : []
      return (
        <span className="flex flex-wrap gap-1">
          {entries.slice(0, 6).map(([key, item]) => (
            <span key={key} className="rounded bg-muted px-1.5 py-0.5 text-xs">{key}={String(item)}</span>
          ))}
        </span>
      )
    }
    case 'config_item': {
      const id = String(row[column.configItem?.idField ?? 'id'] ?? value)
      return <Link to={`/catalog/${encodeURIComponent(id)}`} className="text-primary underline-offset-2 hover:underline">{String(value)}</Link>
    }
    default:
      return <span>{typeof value === 'object' ? JSON.stringify(value) : String(value)}</span>
  }
}

function withParams(search: string, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(search)
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key)
    else params.set(key, value)
  }
  const text = params.toString()
  return text ? `?${text}` : '?'
}

export function ViewScreen({ data }: { data: ViewPageData }) {
  const location = useLocation()
  const { view } = data
  if (!view) return <section className="p-6"><InlineError message={data.error ?? 'This view could not be run.'} /></section>
  const columns = view.columns.filter((column) => !column.hidden)
  const pages = Math.max(1, Math.ceil(data.total / VIEW_PAGE_SIZE))
  return (
    <section className="flex flex-col gap-6 p-6" data-testid="custom-view" data-view-id={view.id}>
      <header className="flex flex-col gap-1">
        <h1 className="text-xl font-semibold">{view.title}</h1>
        {view.description ? <p className="text-sm text-muted-foreground">{view.description}</p> : null}
        <p className="text-xs text-muted-foreground" data-testid="view-refresh">
          {view.responseSource === 'cache' ? 'From cache' : 'Refreshed'}
          {view.lastRefreshedAt ? ` ${view.lastRefreshedAt.replace('T', ' ').slice(0, 19)} UTC` : ''}
        </p>
      </header>
      {data.error ? <InlineError message={data.error} /> : null}
      {view.variables.length > 0 ? (
        <Form method="get" className="flex flex-wrap items-end gap-3" aria-label="Variables">
          {view.variables.map((variable) => (
            <label key={variable.key} className="flex flex-col gap-1 text-sm">
              <span className="font-medium">{variable.label}</span>
              {variable.options.length > 0 ? (
                <select name={`var.${variable.key}`} defaultValue={variable.value} className="h-9 rounded-md border bg-background px-2">
                  {variable.options.map((option) => (
                    <option key={option} value={option}>{option}</option>
                  ))}
                </select>
              ) : (
                <input name={`var.${variable.key}`} defaultValue={variable.value} className="h-9 rounded-md border bg-background px-2" />
              )}
            </label>
          ))}
          <Button type="submit" variant="outline" size="sm">Apply</Button>
        </Form>
      ) : null}
      {view.sections?.length ? (
        <nav aria-label="Sections" className="flex flex-wrap gap-2" data-testid="view-sections">
          {view.sections.map((section) => {
            const uiTarget = section.uiRef ? (section.uiRef.changes !== undefined ? '/catalog/changes' : section.uiRef.configs !== undefined ? '/catalog' : null) : null
            const to = section.viewRef ? `/view/${encodeURIComponent(section.viewRef.namespace ?? view.namespace)}/${encodeURIComponent(section.viewRef.name)}` : uiTarget
            return to ? (
              <Link key={section.title} to={to} className="rounded-md border px-3 py-1.5 text-sm hover:bg-muted">{section.title}</Link>
            ) : (
              <span key={section.title} className="rounded-md border px-3 py-1.5 text-sm text-muted-foreground">{section.title}</span>
            )
          })}
        </nav>
      ) : null}
      <ViewPanels panels={view.panels} />
      {columns.length > 0 ? (
        <div className="overflow-x-auto rounded-md border">
          <table className="w-full text-sm" data-testid="view-table">
            <caption className="sr-only">{view.title}</caption>
            <thead className="bg-muted/50">
              <tr>
                {columns.map((column) => {
                  const sorted = data.sort === column.name ? 'ascending' : data.sort === `-${column.name}` ? 'descending' : undefined
                  return (
                    <th key={column.name} scope="col" aria-sort={sorted ?? 'none'} className="px-3 py-2 text-left font-medium" title={column.description}>
                      <Link to={withParams(location.search, { sort: sorted === 'ascending' ? `-${column.name}` : column.name, page: null })} className="hover:underline">
                        {column.name}
                      </Link>
                    </th>
                  )
                })}
              </tr>
            </thead>
            <tbody>
              {data.rows.length === 0 ? (
                <tr>
                  <td colSpan={columns.length} className="px-3 py-6 text-center text-muted-foreground">No rows</td>
                </tr>
              ) : (
                data.rows.map((row, index) => (
                  <tr key={index} className="border-t">
                    {columns.map((column) => (
                      <td key={column.name} className="px-3 py-2">
                        <Cell column={column} value={row[column.name]} row={row} />
                      </td>
                    ))}
                  </tr>
                ))
              )}
            </tbody>
          </table>
          <nav className="flex items-center justify-between border-t px-3 py-2 text-xs text-muted-foreground" aria-label="Pages">
            <span>{data.total.toLocaleString('en')} rows</span>
            <span className="flex gap-3">
              {data.page > 1 ? <Link to={withParams(location.search, { page: String(data.page - 1) })}>Previous</Link> : null}
              <span>Page {data.page} of {pages}</span>
              {data.page < pages ? <Link to={withParams(location.search, { page: String(data.page + 1) })}>Next</Link> : null}
            </span>
          </nav>
        </div>
      ) : null}
    </section>
  )
}

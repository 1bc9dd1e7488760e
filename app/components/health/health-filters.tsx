import { Form, Link, useLocation, useNavigate, useSubmit } from '@remix-run/react'
import { Filter, LayoutGrid, Search, Table2, X } from '#app/components/ui/icons.tsx'
import { useEffect, useRef } from 'react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { HiddenParams } from '#app/components/data-table/hidden-params.tsx'
import { MultiSelectFilter } from '#app/components/filters/multi-select-filter.tsx'
import { TriStateToggle } from '#app/components/filters/tri-state-toggle.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'
import { formatLabelFilterJson, setFilter, type FilterMap } from '#app/lib/filter-string.ts'
import { labelFilterId, withParams, type LabelOption, type Option } from './health-model.ts'

export const FILTER_TOGGLE_ID = 'health-filters-toggle'
export const SEARCH_DEBOUNCE_MS = 400

/** The toggle for small screens: a label for a checkbox, so it works without JavaScript. */
export function FilterToggle({ count }: { count: number }) {
  return (
    <label htmlFor={FILTER_TOGGLE_ID} className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'cursor-pointer lg:hidden')} data-testid="filters-toggle">
      <Filter aria-hidden="true" />
      Filters
      {count > 0 ? (
        <span className="rounded-full bg-primary px-1.5 text-xs text-primary-foreground" data-testid="filters-badge">
          {count}
        </span>
      ) : null}
    </label>
  )
}

export type HealthFiltersProps = { hidePassing: boolean; labels: FilterMap; labelOptions: LabelOption[]; filterCount: number }

/**
 * 'Filter by Health' and 'Filter by Label' (spec 001 §2). Always shown on wide screens; on
 * small ones a panel behind the toggle that closes by its button, an outside click or Escape.
 */
export function HealthFilters({ hidePassing, labels, labelOptions, filterCount }: HealthFiltersProps) {
  const { search } = useLocation()
  const panel = useRef<HTMLElement>(null)
  useEffect(() => {
    const toggle = document.getElementById(FILTER_TOGGLE_ID) as HTMLInputElement | null
    if (!toggle) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') toggle.checked = false
    }
    const onClick = (event: globalThis.MouseEvent) => {
      const target = event.target as HTMLElement
      if (!toggle.checked || panel.current?.contains(target) || target.closest('[data-testid="filters-toggle"]') || target === toggle) return
      toggle.checked = false
    }
    document.addEventListener('keydown', onKey)
    document.addEventListener('click', onClick)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('click', onClick)
    }
  }, [])
  const labelHref = (id: string, next: 1 | 0 | -1) => withParams(search, { labels: formatLabelFilterJson(setFilter(labels, id, next)) || null })
  return (
    <aside
      ref={panel}
      data-testid="health-filters"
      aria-label="Filters"
      className="fixed inset-y-0 left-0 z-40 hidden w-72 flex-col gap-4 overflow-y-auto border-r bg-card p-4 shadow-lg peer-checked:flex lg:static lg:z-auto lg:flex lg:w-64 lg:shrink-0 lg:shadow-none"
    >
      <div className="flex items-center justify-between lg:hidden">
        <span className="font-semibold">Filters ({filterCount})</span>
        <label htmlFor={FILTER_TOGGLE_ID} aria-label="Close filters" className="cursor-pointer rounded p-1 hover:bg-muted" data-testid="filters-close">
          <X aria-hidden="true" className="size-4" />
        </label>
      </div>
      <section className="flex flex-col gap-2">
        <h2 className="text-xs font-semibold uppercase text-muted-foreground">Filter by Health</h2>
        <Link
          to={withParams(search, { hidePassing: hidePassing ? 'false' : 'true' })}
          preventScrollReset
          replace
          role="switch"
          aria-checked={hidePassing}
          data-testid="hide-passing"
          className="flex items-center justify-between rounded-md px-1 py-1 text-sm hover:bg-muted"
        >
          Hide Passing
          <span className={cn('relative inline-flex h-5 w-9 rounded-full transition-colors', hidePassing ? 'bg-primary' : 'bg-input')}>
            <span className={cn('absolute top-0.5 size-4 rounded-full bg-card shadow transition-all', hidePassing ? 'left-4' : 'left-0.5')} />
          </span>
        </Link>
      </section>
      <section className="flex flex-col gap-2" data-testid="label-filters">
        <h2 className="text-xs font-semibold uppercase text-muted-foreground">Filter by Label</h2>
        {labelOptions.length === 0 ? <p className="text-sm text-muted-foreground">No labels</p> : null}
        {labelOptions.map((option) =>
          option.boolean ? (
            <TriStateToggle
              key={option.key}
              label={option.key}
              state={labels[labelFilterId(option.key, 'true')] ?? 0}
              hrefFor={(next) => labelHref(labelFilterId(option.key, 'true'), next)}
              testId={`label-toggle-${option.key}`}
            />
          ) : (
            <MultiSelectFilter
              key={option.key}
              label={option.key}
              options={option.values.map((value) => ({ id: labelFilterId(option.key, value), label: value }))}
              selected={labels}
              hrefFor={labelHref}
              testId={`label-select-${option.key}`}
            />
          ),
        )}
      </section>
    </aside>
  )
}

export type HealthToolbarProps = {
  query: string
  groupBy: string
  tabBy: string
  layout: 'table' | 'card'
  groupByOptions: Option[]
  tabByOptions: Option[]
  filterCount: number
}

/** Search (debounced 400 ms with JavaScript, a submit without), Group By, Tab By, layout. */
export function HealthToolbar({ query, groupBy, tabBy, layout, groupByOptions, tabByOptions, filterCount }: HealthToolbarProps) {
  const { search } = useLocation()
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const submit = useSubmit()
  const timer = useRef<ReturnType<typeof setTimeout>>()
  useEffect(() => () => clearTimeout(timer.current), [])
  const onSearch = (value: string) => {
    clearTimeout(timer.current)
    timer.current = setTimeout(() => navigate(withParams(search, { query: value.trim() ? value : null }), { replace: true, preventScrollReset: true }), SEARCH_DEBOUNCE_MS)
  }
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="health-toolbar">
      <FilterToggle count={filterCount} />
      {/* The search takes the row; the grouping and layout controls stay together and move to a
          row of their own, right-aligned, when they no longer fit beside it (1280 px with the
          no-JS Apply and Search buttons). */}
      <Form method="get" role="search" preventScrollReset className="relative flex min-w-64 flex-[1_1_20rem] items-center" data-testid="health-search">
        <HiddenParams search={search} exclude={['query', 'page']} />
        <Search aria-hidden="true" className="pointer-events-none absolute left-2 size-4 text-muted-foreground" />
        <input
          type="search"
          name="query"
          defaultValue={query}
          key={query}
          placeholder="Search by name, description, or endpoint"
          aria-label="Search by name, description, or endpoint"
          onChange={(event) => onSearch(event.target.value)}
          className="h-9 w-full rounded-md border border-input bg-card pl-8 pr-8 text-sm"
        />
        {query ? (
          <Link to={withParams(search, { query: null })} preventScrollReset replace aria-label="Clear search" className="absolute right-2 rounded p-0.5 hover:bg-muted" data-testid="search-clear">
            <X aria-hidden="true" className="size-4" />
          </Link>
        ) : null}
        {hydrated ? null : (
          <button type="submit" className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'ml-2 shrink-0')} data-testid="search-submit">
            Search
          </button>
        )}
      </Form>
      <div className="ml-auto flex items-center gap-2">
        <Form method="get" preventScrollReset className="flex items-center gap-2" data-testid="health-grouping" onChange={(event) => submit(event.currentTarget, { preventScrollReset: true, replace: true })}>
          <HiddenParams search={search} exclude={['groupBy', 'tabBy', 'tab', 'page', 'expanded']} />
          <label className="flex items-center gap-1 whitespace-nowrap text-sm">
            Group By
            <select name="groupBy" defaultValue={groupBy} key={`g-${groupBy}`} className="h-9 rounded-md border border-input bg-card px-2" data-testid="group-by">
              {groupByOptions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-1 whitespace-nowrap text-sm">
            Tab By
            <select name="tabBy" defaultValue={tabBy} key={`t-${tabBy}`} className="h-9 rounded-md border border-input bg-card px-2" data-testid="tab-by">
              {tabByOptions.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          {hydrated ? null : (
            <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })} data-testid="grouping-submit">
              Apply
            </button>
          )}
        </Form>
        <div className="flex rounded-md border" role="group" aria-label="Layout">
          <Link to={withParams(search, { layout: null }, true)} preventScrollReset aria-pressed={layout === 'table'} aria-label="Table layout" data-testid="layout-table" className={cn('p-2', layout === 'table' && 'bg-accent')}>
            <Table2 aria-hidden="true" className="size-4" />
          </Link>
          <Link to={withParams(search, { layout: 'card' }, true)} preventScrollReset aria-pressed={layout === 'card'} aria-label="Card layout" data-testid="layout-card" className={cn('p-2', layout === 'card' && 'bg-accent')}>
            <LayoutGrid aria-hidden="true" className="size-4" />
          </Link>
        </div>
      </div>
    </div>
  )
}

export function HealthTabs({ tabs, active }: { tabs: { value: string; label: string; count: number }[]; active: string }) {
  const { search } = useLocation()
  return (
    <nav aria-label="Tabs" className="flex gap-1 overflow-x-auto border-b" data-testid="health-tabs">
      {tabs.map((tab) => (
        <Link
          key={tab.value}
          to={withParams(search, { tab: tab.value === 'All' ? null : tab.value, expanded: null })}
          preventScrollReset
          aria-current={tab.value === active ? 'page' : undefined}
          data-testid="health-tab"
          data-value={tab.value}
          className={cn('whitespace-nowrap border-b-2 px-3 py-2 text-sm', tab.value === active ? 'border-primary font-semibold' : 'border-transparent text-muted-foreground hover:text-foreground')}
        >
          {tab.label} <span className="text-xs text-muted-foreground">({tab.count})</span>
        </Link>
      ))}
    </nav>
  )
}

import { Form, Link, useLocation, useSubmit } from '@remix-run/react'
import { useHydrated } from 'remix-utils/use-hydrated'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { cn } from '#app/lib/cn.ts'
import { HiddenParams } from './hidden-params.tsx'

/** Page sizes the shared table offers (spec 002 §9). */
export const TABLE_PAGE_SIZES = [50, 100, 200] as const

export type PaginationProps = {
  /** 1-based current page. */
  page: number
  pageCount: number
  pageSize: number
  pageSizes?: readonly number[]
  /** URL parameter names, so two tables on one page can page independently. */
  pageParam?: string
  pageSizeParam?: string
  totalRows?: number
  testId?: string
}

function hrefWith(search: string, changes: Record<string, string>): string {
  const params = new URLSearchParams(search)
  for (const [name, value] of Object.entries(changes)) params.set(name, value)
  return `?${params.toString()}`
}

type PageFigures = Pick<PaginationProps, 'page' | 'pageCount' | 'pageSize' | 'pageSizes' | 'totalRows'>

/**
 * Which controls a pager needs. One page has nowhere to go: no <<, Previous, Next, >> and no
 * 'Go to page'. The page-size select stays while another size would page the rows differently,
 * that is while they may outnumber the smallest size.
 */
export function paginationControls({ page, pageCount, pageSize, pageSizes = TABLE_PAGE_SIZES, totalRows }: PageFigures): { navigation: boolean; pageSize: boolean } {
  const isSinglePage = pageCount <= 1 && page <= 1
  // Without a total, one page at the current size holds at most that many rows.
  const mostRows = totalRows ?? (isSinglePage ? pageSize : Number.POSITIVE_INFINITY)
  return { navigation: !isSinglePage, pageSize: pageSizes.length > 1 && (!isSinglePage || mostRows > Math.min(...pageSizes)) }
}

/**
 * 'Page X of Y', <<, Previous, Next, >>, a 'Go to page' input and the page-size select, all as
 * links and GET forms over the URL, so it pages without JavaScript; what one page does not need
 * is left out (`paginationControls`).
 */
export function Pagination({ page, pageCount, pageSize, pageSizes = TABLE_PAGE_SIZES, pageParam = 'page', pageSizeParam = 'pageSize', totalRows, testId = 'pagination' }: PaginationProps) {
  const { search } = useLocation()
  const hydrated = useHydrated()
  const submit = useSubmit()
  const shows = paginationControls({ page, pageCount, pageSize, pageSizes, totalRows })
  const link = (target: number, label: string, text: string, disabled: boolean) =>
    disabled ? (
      <span aria-disabled="true" className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'pointer-events-none opacity-50')} aria-label={label}>
        {text}
      </span>
    ) : (
      <Link to={hrefWith(search, { [pageParam]: String(target) })} preventScrollReset className={buttonVariants({ variant: 'outline', size: 'sm' })} aria-label={label} data-testid={`${testId}-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {text}
      </Link>
    )
  return (
    <nav aria-label="Pagination" data-testid={testId} className="flex flex-wrap items-center gap-2 py-2 text-sm">
      {shows.navigation ? link(1, 'First page', '<<', page <= 1) : null}
      {shows.navigation ? link(page - 1, 'Previous', 'Previous', page <= 1) : null}
      <span data-testid={`${testId}-label`}>
        Page {page} of {pageCount}
      </span>
      {shows.navigation ? link(page + 1, 'Next', 'Next', page >= pageCount) : null}
      {shows.navigation ? link(pageCount, 'Last page', '>>', page >= pageCount) : null}
      {shows.navigation ? (
        <Form method="get" preventScrollReset className="flex items-center gap-1" data-testid={`${testId}-goto`}>
          <HiddenParams search={search} exclude={[pageParam]} />
          <label className="flex items-center gap-1">
            Go to page
            <input type="number" name={pageParam} min={1} max={pageCount} defaultValue={page} key={page} className="h-8 w-16 rounded-md border border-input bg-card px-2" />
          </label>
          <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Go
          </button>
        </Form>
      ) : null}
      {shows.pageSize ? (
        <Form method="get" preventScrollReset className="flex items-center gap-1" data-testid={`${testId}-size`}>
          <HiddenParams search={search} exclude={[pageParam, pageSizeParam]} />
          <label className="flex items-center gap-1">
            <span className="sr-only">Rows per page</span>
            <select
              name={pageSizeParam}
              defaultValue={pageSize}
              key={pageSize}
              className="h-8 rounded-md border border-input bg-card px-2"
              onChange={(event) => submit(event.currentTarget.form, { preventScrollReset: true })}
            >
              {pageSizes.map((size) => (
                <option key={size} value={size}>
                  Show {size}
                </option>
              ))}
            </select>
          </label>
          {hydrated ? null : (
            <button type="submit" className={buttonVariants({ variant: 'outline', size: 'sm' })}>
              Apply
            </button>
          )}
        </Form>
      ) : null}
      {totalRows !== undefined ? (
        <span className="text-muted-foreground" data-testid={`${testId}-rows`}>
          {totalRows} rows
        </span>
      ) : null}
    </nav>
  )
}

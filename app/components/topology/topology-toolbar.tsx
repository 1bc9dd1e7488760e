import { Link, useLocation } from '@remix-run/react'
import { CatalogFilters } from '#app/components/catalog/catalog-filters.tsx'
import { Pagination } from '#app/components/data-table/pagination.tsx'
import { buttonVariants } from '#app/components/ui/button.tsx'
import { Eye, EyeOff } from '#app/components/ui/icons.tsx'
import { CardGrid, ComponentCard } from './component-card.tsx'
import { TOPOLOGY_PAGE_SIZES, TOPOLOGY_SORTS, TOPOLOGY_STATUSES, topologyHref, type TopologyCardData, type TopologyParams } from './topology-model.ts'

export type TopologyFacets = { teams: string[]; types: string[]; statuses: string[]; labels: string[] }

const SORT_LABELS: Record<(typeof TOPOLOGY_SORTS)[number], string> = { name: 'Name', status: 'Status', type: 'Type', updated_at: 'Updated' }

/**
 * The dashboard's filters (team, labels, status, type, sort) as the catalog's GET filter bar, so
 * they live in the URL and work without JavaScript, and the show-hidden switch as a link
 * (`showHiddenComponents=yes|no`, spec 002 §2).
 */
export function TopologyToolbar({ params, facets, showHidden }: { params: TopologyParams; facets: TopologyFacets; showHidden: boolean }) {
  const { search } = useLocation()
  const statuses = [...new Set([...TOPOLOGY_STATUSES, ...facets.statuses])]
  return (
    <div className="flex flex-wrap items-end justify-between gap-2">
      <CatalogFilters
        testId="topology-filters"
        search={params.search}
        searchPlaceholder="Name or type"
        selects={[
          { name: 'team', label: 'Team', value: params.team, options: facets.teams },
          { name: 'labels', label: 'Labels', value: params.label, options: facets.labels },
          { name: 'status', label: 'Status', value: params.status, options: statuses },
          { name: 'type', label: 'Type', value: params.type, options: facets.types },
          { name: 'sortBy', label: 'Sort by', value: params.sortBy === 'name' ? '' : params.sortBy, allLabel: 'Name', options: TOPOLOGY_SORTS.filter((sort) => sort !== 'name').map((sort) => ({ value: sort, label: SORT_LABELS[sort] })) },
          { name: 'sortOrder', label: 'Order', value: params.sortOrder === 'asc' ? '' : params.sortOrder, allLabel: 'Ascending', options: [{ value: 'desc', label: 'Descending' }] },
        ]}
      />
      <Link
        to={topologyHref(search, { showHiddenComponents: showHidden ? 'no' : 'yes', page: null })}
        preventScrollReset
        className={buttonVariants({ variant: 'outline', size: 'sm' })}
        data-testid="show-hidden"
        aria-pressed={showHidden}
      >
        {showHidden ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
        {showHidden ? 'Hide hidden components' : 'Show hidden components'}
      </Link>
    </div>
  )
}

export function TopologyPager({ page, pageCount, pageSize, total }: { page: number; pageCount: number; pageSize: number; total: number }) {
  return <Pagination page={page} pageCount={pageCount} pageSize={pageSize} pageSizes={TOPOLOGY_PAGE_SIZES} totalRows={total} testId="topology-pagination" />
}

export type CardPage = { cards: TopologyCardData[]; total: number; page: number; pageCount: number; facets: TopologyFacets }

/** The filters, one page of cards at the chosen width (or `emptyText`) and the pager: /topology and a component's children. */
export function TopologyCardList({ params, page, showHidden, cardWidth, emptyText }: { params: TopologyParams; page: CardPage; showHidden: boolean; cardWidth: number; emptyText: string }) {
  return (
    <>
      <TopologyToolbar params={params} facets={page.facets} showHidden={showHidden} />
      {page.cards.length === 0 ? (
        <p className="rounded-md border border-dashed p-8 text-center text-muted-foreground" data-testid="topology-empty">
          {emptyText}
        </p>
      ) : (
        <CardGrid>
          {page.cards.map((card) => (
            <ComponentCard key={card.id} card={card} width={cardWidth} href={`/topology/${card.id}`} />
          ))}
        </CardGrid>
      )}
      <TopologyPager page={page.page} pageCount={page.pageCount} pageSize={params.pageSize} total={page.total} />
    </>
  )
}

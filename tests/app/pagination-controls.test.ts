import { describe, expect, it } from 'vitest'
import { paginationControls } from '#app/components/data-table/pagination.tsx'

describe('the pager shows only the controls a page needs', () => {
  it('one page: no navigation, and no page size while every size would show the same page', () => {
    expect(paginationControls({ page: 1, pageCount: 1, pageSize: 50, totalRows: 12 })).toEqual({ navigation: false, pageSize: false })
    expect(paginationControls({ page: 1, pageCount: 0, pageSize: 50, totalRows: 0 })).toEqual({ navigation: false, pageSize: false })
    // Without a total, a single page at the smallest size holds no more rows than that size.
    expect(paginationControls({ page: 1, pageCount: 1, pageSize: 50 })).toEqual({ navigation: false, pageSize: false })
  })

  it('one page that a smaller size would split keeps the page-size select', () => {
    expect(paginationControls({ page: 1, pageCount: 1, pageSize: 200, totalRows: 120 })).toEqual({ navigation: false, pageSize: true })
    expect(paginationControls({ page: 1, pageCount: 1, pageSize: 100 })).toEqual({ navigation: false, pageSize: true })
  })

  it('several pages: everything, unless only one size is offered', () => {
    expect(paginationControls({ page: 2, pageCount: 3, pageSize: 50, totalRows: 140 })).toEqual({ navigation: true, pageSize: true })
    expect(paginationControls({ page: 1, pageCount: 3, pageSize: 50, pageSizes: [50], totalRows: 140 })).toEqual({ navigation: true, pageSize: false })
  })

  it('a page past the end (a stale link) still offers the way back', () => {
    expect(paginationControls({ page: 4, pageCount: 1, pageSize: 50, totalRows: 3 }).navigation).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { documentTitle, getRouteTitle } from '#app/lib/route-handle.ts'
import { parseContentRangeTotal } from '#app/lib/live-figures.server.ts'

describe('getRouteTitle', () => {
  it('takes the deepest route that names a title', () => {
    expect(getRouteTitle([{ handle: { title: 'Catalog' } }, { handle: {} }, { handle: { title: 'Catalog Changes' } }])).toBe('Catalog Changes')
    expect(getRouteTitle([{ handle: { title: 'Catalog' } }, { handle: undefined }])).toBe('Catalog')
    expect(getRouteTitle([])).toBeUndefined()
  })

  it('reads a title function with the route data', () => {
    const handle = { title: (data: unknown) => (data as { label?: string })?.label }
    expect(getRouteTitle([{ handle: { title: 'Settings' } }, { handle, data: { label: 'Teams' } }])).toBe('Teams')
    expect(getRouteTitle([{ handle: { title: 'Settings' } }, { handle, data: null }])).toBe('Settings')
  })
})

describe('documentTitle', () => {
  it('is "{prefix} | Lookout"', () => {
    expect(documentTitle('Health')).toBe('Health | Lookout')
    expect(documentTitle(undefined)).toBe('Lookout')
  })
})

describe('parseContentRangeTotal', () => {
  it('reads the total after the slash', () => {
    expect(parseContentRangeTotal('0-0/42')).toBe(42)
    expect(parseContentRangeTotal('*/0')).toBe(0)
    expect(parseContentRangeTotal('0-9/*')).toBeNull()
    expect(parseContentRangeTotal(null)).toBeNull()
  })
})

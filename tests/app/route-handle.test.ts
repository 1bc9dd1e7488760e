import { describe, expect, it } from 'vitest'
import { documentTitle, getRouteTitle } from '#app/lib/route-handle.ts'

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


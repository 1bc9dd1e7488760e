import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { matchPath, matchRoutes } from '@remix-run/router'
import { describe, expect, it } from 'vitest'

/**
 * patches/@remix-run+router+*.patch (docs/decisions/019) keeps each compiled route pattern, so
 * matching stops rebuilding a RegExp per route per match. npm's postinstall applies it; these
 * tests say it is applied and that the kept patterns answer exactly as fresh ones did: the same
 * path with a different end or case-sensitivity is another pattern.
 */
describe('route matching with compiled patterns kept', () => {
  it('runs the patched router', () => {
    const require = createRequire(import.meta.url)
    for (const entry of ['@remix-run/router', '@remix-run/router/dist/router.js']) {
      expect(readFileSync(require.resolve(entry), 'utf8'), entry).toContain('Lookout patch (docs/decisions/019)')
    }
  })

  it('tells apart the same path matched to the end or as a prefix, with and without case', () => {
    expect(matchPath({ path: '/incidents', end: true }, '/incidents/42')).toBeNull()
    expect(matchPath({ path: '/incidents', end: false }, '/incidents/42')?.pathnameBase).toBe('/incidents')
    expect(matchPath({ path: '/incidents', end: true }, '/incidents/42')).toBeNull()
    expect(matchPath({ path: '/Health', caseSensitive: true }, '/health')).toBeNull()
    expect(matchPath({ path: '/Health' }, '/health')?.pathname).toBe('/health')
    expect(matchPath({ path: '/Health', caseSensitive: true }, '/Health')?.pathname).toBe('/Health')
  })

  it('matches nested routes with params, optional segments and splats, repeatedly', () => {
    const routes = [
      {
        id: 'console',
        path: '/',
        children: [
          { id: 'incident', path: 'incidents/:id' },
          { id: 'table', path: 'settings/:table/:id?' },
          { id: 'configs', path: 'configs/*' },
        ],
      },
    ]
    for (let round = 0; round < 3; round++) {
      expect(matchRoutes(routes, '/incidents/abc')?.at(-1)?.params).toEqual({ id: 'abc' })
      expect(matchRoutes(routes, '/settings/users')?.at(-1)?.params).toEqual({ table: 'users' })
      expect(matchRoutes(routes, '/settings/users/7')?.at(-1)?.params).toEqual({ table: 'users', id: '7' })
      expect(matchRoutes(routes, '/configs/a/b')?.at(-1)?.params).toEqual({ '*': 'a/b' })
      expect(matchRoutes(routes, '/nowhere')).toBeNull()
    }
  })
})

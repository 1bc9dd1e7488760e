import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Route modules build no data-API queries: they call named functions of app/lib/<domain>.server.ts,
 * which use the typed client (app/lib/data-client.server.ts). This test fails when a file under
 * app/routes carries PostgREST filter syntax or a /db/ path (issue 11, "Done when").
 */

const ROUTES_DIR = path.resolve(import.meta.dirname, '../../app/routes')

/** Operators of a filter written by hand (`col=eq.x`, `or=(a.ilike.*x*)`), select/order, and the data API path. */
const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'is', 'like', 'ilike', 'cs', 'cd', 'ov', 'fts', 'plfts', 'not']
const POSTGREST_SYNTAX = [
  new RegExp(`=(?:${OPERATORS.join('|')})\\.`),
  /\b(?:ilike|like|eq|neq|in|is)\.(?:\(|\*|null\b|true\b|false\b)/,
  /[?&]?\bselect=/,
  /[?&]?\border=\w+\.(?:asc|desc)/,
  /\/db\//,
  /\bprefer['"`]?\s*:\s*['"`][^'"`]*count=/i,
]

/**
 * Routes still being migrated by other parts of issue 11. pending issue 11: remove when migrated.
 * A listed file that no longer has the syntax fails the test, so the list only shrinks.
 */
const PENDING = new Set<string>([])

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return routeFiles(full)
    return /\.(?:ts|tsx|js|jsx)$/.test(entry.name) ? [full] : []
  })
}

/** `line: text` for every line of the source with PostgREST syntax. */
function findings(source: string): string[] {
  return source.split('\n').flatMap((line, index) => (POSTGREST_SYNTAX.some((pattern) => pattern.test(line)) ? [`${index + 1}: ${line.trim()}`] : []))
}

const files = routeFiles(ROUTES_DIR).map((file) => ({ name: path.relative(ROUTES_DIR, file).split(path.sep).join('/'), source: readFileSync(file, 'utf8') }))

describe('route modules build no PostgREST queries', () => {
  it('recognises hand-written queries and leaves ordinary code alone', () => {
    for (const query of [
      "apiJson(args, `/db/teams?id=eq.${id}`)",
      "'?select=id,name&deleted_at=is.null'",
      "query.set('or', `(title.ilike.*${term}*,incident_id.ilike.*${term}*)`)",
      "`people?id=in.(${ids.join(',')})`",
      "'order=created_at.desc&limit=10'",
      "headers: { prefer: 'count=exact' }",
    ]) {
      expect(findings(query), query).not.toEqual([])
    }
    for (const code of [
      "const tab = url.searchParams.get('tab') === 'jobs'",
      "db.from('teams').select('id,name').eq('id', id).is('deleted_at', null)",
      '<Link to={`/settings/${table}/${id}?tab=jobs`}>',
      "sortBy: params.get('sortBy')",
    ]) {
      expect(findings(code), code).toEqual([])
    }
  })

  it('finds the route modules', () => {
    expect(files.length).toBeGreaterThan(20)
  })

  for (const file of files.filter((candidate) => !PENDING.has(candidate.name))) {
    it(`${file.name} calls app/lib functions instead`, () => {
      expect(findings(file.source), `${file.name} builds a data-API query; move it into app/lib/<domain>.server.ts`).toEqual([])
    })
  }

  it('keeps the pending list honest: every listed file exists and still needs migrating', () => {
    for (const name of PENDING) {
      const file = files.find((candidate) => candidate.name === name)
      expect(file, `${name} is listed as pending but does not exist; remove it from PENDING`).toBeDefined()
      expect(findings(file!.source), `${name} no longer builds queries; remove it from PENDING`).not.toEqual([])
    }
  })
})

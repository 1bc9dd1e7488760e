import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { INCIDENT_SEVERITY_ORDER, INCIDENT_STATUSES } from '#contract/incident-vocabulary.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { insertPerson } from './incident-fixtures.ts'

/**
 * Incidents sort by severity and status rank in the database (migration 0191): the
 * `incident_summary` rank columns follow the contract's orders, `order=severity_rank` pages
 * through the whole result set in rank order, and `order=severity` keeps PostgREST's text order
 * for existing clients.
 */

const testApp = useTestApp()
const TAG = `rank-${Date.now()}`

type Row = { title: string; severity: string; status: string; severity_rank: number; status_rank: number }

beforeAll(async () => {
  const author = await insertPerson(testApp.db, 'ranker')
  // Every severity (both medium spellings, plus one outside the vocabulary), statuses cycling.
  const severities = [...INCIDENT_SEVERITY_ORDER, 'Medium', 'unheard-of']
  for (const [index, severity] of severities.entries()) {
    const status = INCIDENT_STATUSES[index % INCIDENT_STATUSES.length]!
    await testApp.db.query(
      `INSERT INTO incidents (title, description, type, severity, status, created_by) VALUES ($1, '', 'availability', $2, $3, $4)`,
      [`${TAG} ${index} ${severity}`, severity, status, author],
    )
  }
})

async function read(query: string): Promise<Row[]> {
  const response = await request(testApp.app)
    .get(`/api/db/incident_summary?select=title,severity,status,severity_rank,status_rank&title=like.${encodeURIComponent(TAG)}*&${query}`)
    .set(bearer)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body as Row[]
}

describe('incident sort ranks', () => {
  it('ranks severity and status in the contract order, case-insensitively, unknown values lowest', async () => {
    const rows = await read('order=title')
    for (const row of rows) {
      const severityRank = INCIDENT_SEVERITY_ORDER.indexOf(row.severity.toLowerCase() as (typeof INCIDENT_SEVERITY_ORDER)[number]) + 1
      expect(row.severity_rank, row.severity).toBe(severityRank)
      expect(row.status_rank, row.status).toBe(INCIDENT_STATUSES.indexOf(row.status as (typeof INCIDENT_STATUSES)[number]) + 1)
    }
    expect(rows.find((row) => row.severity === 'unheard-of')?.severity_rank).toBe(0)
  })

  it('sorts the whole result set by rank, page after page', async () => {
    const all = (await read('order=severity_rank.desc,id.asc')).map((row) => row.severity)
    expect(all.slice(0, 5)).toEqual(['critical', 'blocker', 'high', expect.stringMatching(/^medium$/i), expect.stringMatching(/^medium$/i)])
    expect(all.slice(5)).toEqual(['low', 'warning', 'info', 'unheard-of'])
    const pages = [...(await read('order=severity_rank.desc,id.asc&limit=4&offset=0')), ...(await read('order=severity_rank.desc,id.asc&limit=4&offset=4')), ...(await read('order=severity_rank.desc,id.asc&limit=4&offset=8'))]
    expect(pages.map((row) => row.severity)).toEqual(all)
  })

  it('sorts statuses in the spec order', async () => {
    const ranks = (await read('order=status_rank.asc,id.asc')).map((row) => row.status_rank)
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b))
    expect((await read('order=status_rank.asc&limit=1'))[0]?.status).toBe('new')
  })

  it('keeps order=severity as the text order existing clients get from PostgREST', async () => {
    const severities = (await read('order=severity.asc,id.asc')).map((row) => row.severity)
    // The database's own text order (its collation decides where 'Medium' goes).
    const { rows } = await testApp.db.query<{ severity: string }>(`SELECT severity FROM incidents WHERE title LIKE $1 ORDER BY severity, id`, [`${TAG}%`])
    expect(severities).toEqual(rows.map((row) => row.severity))
    expect(severities).not.toEqual((await read('order=severity_rank.asc')).map((row) => row.severity))
  })
})

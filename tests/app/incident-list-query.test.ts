import { PostgrestClient } from '@supabase/postgrest-js'
import { describe, expect, it } from 'vitest'
import { incidentListQuery } from '#app/lib/incidents.server.ts'
import { INCIDENT_ORDER_COLUMN, parseIncidentListParams, type IncidentListParams } from '#app/lib/incidents.ts'

/**
 * The incidents list's URL state (one zod schema, every bad value falls back to its default)
 * and the request the list then sends to the data API, read back from the client's fetch.
 */

const PERSON = '17df4ad2-6040-46a2-add4-a75032a4e222'

function parse(search: string): IncidentListParams {
  return parseIncidentListParams(new URLSearchParams(search))
}

/** The query string the data client sends for these list parameters, and its headers. */
async function sentFor(params: IncidentListParams): Promise<{ query: URLSearchParams; path: string; headers: Headers }> {
  let sent: { url: string; headers: Headers } | undefined
  const client = new PostgrestClient('http://gateway.test/api/db', {
    fetch: async (input, init) => {
      sent = { url: input.toString(), headers: new Headers(init?.headers) }
      return new Response('[]', { status: 200, headers: { 'content-type': 'application/json', 'content-range': '*/0' } })
    },
  })
  await incidentListQuery(client, params)
  const url = new URL(sent!.url)
  return { query: url.searchParams, path: url.pathname, headers: sent!.headers }
}

describe('incident list search parameters', () => {
  it('defaults to the newest first, page 1 of 50, no filters and no dialog', () => {
    expect(parse('')).toEqual({
      status: [],
      severity: [],
      type: [],
      commander: null,
      search: '',
      sortBy: 'created_at',
      sortDesc: true,
      page: 1,
      pageSize: 50,
      dialog: null,
    })
  })

  it('keeps known values in the vocabulary spelling, repeated or comma-separated', () => {
    expect(parse('status=open,RESOLVED&status=open&severity=medium&severity=Critical&type=technicaldebt&search=%20api%20&page=3&pageSize=100&dialog=new')).toEqual({
      status: ['open', 'resolved'],
      severity: ['Medium', 'critical'],
      type: ['technicalDebt'],
      commander: null,
      search: 'api',
      sortBy: 'created_at',
      sortDesc: true,
      page: 3,
      pageSize: 100,
      dialog: 'new',
    })
  })

  it('falls back to each default on unknown or bad values, never throwing', () => {
    const junk = 'status=bogus&severity=&type=x&commander=nope&sortBy=drop%20table&sortDesc=maybe&page=-3&pageSize=7&dialog=edit&search=' + 'x'.repeat(500)
    const params = parse(junk)
    expect(params).toMatchObject({ status: [], severity: [], type: [], commander: null, sortBy: 'created_at', sortDesc: true, page: 1, pageSize: 50, dialog: null })
    expect(params.search).toHaveLength(200)
    for (const page of ['0', '1.5', 'abc', '99999999999', '']) expect(parse(`page=${page}`).page).toBe(1)
  })

  it('reads the owner as the commander, and a chosen column ascending unless sortDesc=true', () => {
    expect(parse(`owner=${PERSON}`).commander).toBe(PERSON)
    expect(parse(`commander=nope&owner=${PERSON}`).commander).toBe(PERSON)
    expect(parse('sortBy=severity')).toMatchObject({ sortBy: 'severity', sortDesc: false })
    expect(parse('sortBy=severity&sortDesc=true')).toMatchObject({ sortBy: 'severity', sortDesc: true })
    expect(parse('sortDesc=false')).toMatchObject({ sortBy: 'created_at', sortDesc: false })
  })
})

describe('incident list → data API request', () => {
  it('reads incident_summary with an exact count, newest first, one page', async () => {
    const { path, query, headers } = await sentFor(parse(''))
    expect(path).toBe('/api/db/incident_summary')
    expect(query.get('select')).toBe('id,incident_id,title,severity,type,status,created_at,updated_at,commander,responders')
    expect(query.get('order')).toBe('created_at.desc,id.asc')
    expect(query.get('offset')).toBe('0')
    expect(query.get('limit')).toBe('50')
    expect(headers.get('prefer')).toContain('count=exact')
    for (const name of ['status', 'severity', 'type', 'commander->>id', 'or']) expect(query.has(name)).toBe(false)
  })

  it('sends each filter as its PostgREST operator', async () => {
    const { query } = await sentFor(parse(`status=open&status=mitigated&severity=medium&type=cost&commander=${PERSON}&search=api,(x)*&page=3&pageSize=100`))
    expect(query.get('status')).toBe('in.(open,mitigated)')
    // Medium matches both spellings.
    expect(query.get('severity')).toBe('in.(medium,Medium)')
    expect(query.get('type')).toBe('in.(cost)')
    expect(query.get('commander->>id')).toBe(`eq.${PERSON}`)
    // Characters that would break or=(...) are blanked out of the term.
    expect(query.get('or')).toBe('(title.ilike.*api  x*,incident_id.ilike.*api  x*)')
    expect(query.get('offset')).toBe('200')
    expect(query.get('limit')).toBe('100')
  })

  it('orders severity and status by their database rank, other columns by value', async () => {
    expect((await sentFor(parse('sortBy=severity&sortDesc=true'))).query.get('order')).toBe('severity_rank.desc,id.asc')
    expect((await sentFor(parse('sortBy=status'))).query.get('order')).toBe('status_rank.asc,id.asc')
    expect((await sentFor(parse('sortBy=title'))).query.get('order')).toBe('title.asc,id.asc')
    expect(INCIDENT_ORDER_COLUMN).toMatchObject({ severity: 'severity_rank', status: 'status_rank', incident_id: 'incident_id' })
  })
})

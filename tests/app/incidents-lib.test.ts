import { describe, expect, it } from 'vitest'
import {
  buildHypothesisTree,
  buildIncidentListQuery,
  getChildHypothesisType,
  getDefaultHypothesis,
  getEvidenceLink,
  getSeverityBadge,
  getTotalFromContentRange,
  HYPOTHESIS_REQUIRED,
  INCIDENT_REQUIRED,
  linkPageHref,
  parseEvidenceTarget,
  parseIncidentListParams,
  readLinkFormValues,
  safeReturnTo,
  SEVERITY_REQUIRED,
  TYPE_REQUIRED,
  validateLink,
  validateNewIncident,
  type EvidenceTarget,
} from '#app/lib/incidents.ts'

const CHECK = '2a851233-b002-4624-a6a1-776b8cf6dc1e'
const INCIDENT = '17df4ad2-6040-46a2-add4-a75032a4e222'
const HYPOTHESIS = '124d16db-6f8a-42a0-b94b-0c2dea80d727'
const target: EvidenceTarget = { type: 'check', check_id: CHECK, description: 'refunds-api-health is unhealthy' }
const values = (changes: Record<string, string>) => readLinkFormValues((name) => changes[name] ?? '')

describe('severity badge', () => {
  it('maps 4 critical, 3 blocker, 2 high, 1 medium (either spelling), other low', () => {
    expect(getSeverityBadge('critical')).toMatchObject({ level: 4, label: 'Critical' })
    expect(getSeverityBadge('blocker')).toMatchObject({ level: 3, label: 'Blocker' })
    expect(getSeverityBadge('high')).toMatchObject({ level: 2, label: 'High' })
    expect(getSeverityBadge('Medium')).toMatchObject({ level: 1, label: 'Medium' })
    expect(getSeverityBadge('medium').level).toBe(1)
    for (const other of ['low', 'info', 'warning', '', null, 'nonsense']) expect(getSeverityBadge(other)).toMatchObject({ level: 0, label: 'Low' })
  })
})

describe('incident list URL state', () => {
  it('keeps known filters, drops junk and defaults to newest first', () => {
    const params = parseIncidentListParams(new URLSearchParams('status=open,bogus&status=RESOLVED&severity=medium&type=cost&commander=nope&page=-3&pageSize=7'))
    expect(params).toMatchObject({ status: ['open', 'resolved'], severity: ['Medium'], type: ['cost'], commander: null, page: 1, pageSize: 50, sortBy: 'created_at', sortDesc: true })
    expect(parseIncidentListParams(new URLSearchParams(`owner=${INCIDENT}&sortBy=title`))).toMatchObject({ commander: INCIDENT, sortBy: 'title', sortDesc: false })
  })

  it('builds the PostgREST query with both medium spellings, a safe search and paging', () => {
    const query = buildIncidentListQuery(parseIncidentListParams(new URLSearchParams(`severity=Medium&search=api,(x)*&commander=${INCIDENT}&page=3&pageSize=100`)))
    expect(query.get('severity')).toBe('in.(medium,Medium)')
    expect(query.get('or')).toBe('(title.ilike.*api  x*,incident_id.ilike.*api  x*)')
    expect(query.get('commander->>id')).toBe(`eq.${INCIDENT}`)
    expect(query.get('offset')).toBe('200')
    expect(query.get('limit')).toBe('100')
    expect(query.get('order')).toBe('created_at.desc')
  })

  it('reads totals from Content-Range', () => {
    expect(getTotalFromContentRange('0-49/1234')).toBe(1234)
    expect(getTotalFromContentRange('*/0')).toBe(0)
    expect(getTotalFromContentRange('0-49/*')).toBeNull()
    expect(getTotalFromContentRange(null)).toBeNull()
  })
})

describe('create incident', () => {
  it('answers the spec messages and defaults the status to open', () => {
    expect(validateNewIncident({}).errors).toEqual({ title: 'This field is required', type: TYPE_REQUIRED, severity: SEVERITY_REQUIRED })
    expect(validateNewIncident({ title: ' Outage ', type: 'availability', severity: 'high' }).value).toEqual({
      title: 'Outage',
      type: 'availability',
      severity: 'high',
      status: 'open',
      description: '',
    })
    expect(validateNewIncident({ title: 'x', type: 'availability', severity: 'high', status: 'done' }).errors).toHaveProperty('status')
  })
})

describe('link to incident', () => {
  it('parses only complete targets', () => {
    expect(parseEvidenceTarget((name) => ({ type: 'check', check_id: CHECK, description: 'd' })[name])).toEqual({ type: 'check', check_id: CHECK, description: 'd' })
    expect(parseEvidenceTarget((name) => ({ type: 'check', config_id: CHECK })[name])).toBeNull()
    expect(parseEvidenceTarget((name) => ({ type: 'log', check_id: CHECK })[name])).toBeNull()
    expect(parseEvidenceTarget((name) => ({ type: 'topology', component_id: CHECK })[name])).toMatchObject({ component_id: CHECK, description: '' })
  })

  it('requires an incident, and a hypothesis for an existing one', () => {
    expect(validateLink(target, values({})).errors).toEqual({ incident: INCIDENT_REQUIRED })
    expect(validateLink(target, values({ incident: INCIDENT })).errors).toEqual({ hypothesis: HYPOTHESIS_REQUIRED })
    expect(validateLink(target, values({ incident: INCIDENT, hypothesis: 'new' })).errors).toEqual({ hypothesis: HYPOTHESIS_REQUIRED })
    expect(validateLink(target, values({ incident: INCIDENT, hypothesis: HYPOTHESIS })).plan).toMatchObject({
      incident: { kind: 'existing', id: INCIDENT },
      hypothesis: { kind: 'existing', id: HYPOTHESIS },
      description: target.description,
    })
  })

  it('asks a new incident for type and severity and names its hypothesis after it', () => {
    expect(validateLink(target, values({ incident: 'new' })).errors).toEqual({ incident_title: INCIDENT_REQUIRED, incident_type: TYPE_REQUIRED, severity: SEVERITY_REQUIRED })
    const { plan } = validateLink(target, values({ incident: 'new', incident_title: 'Refunds down', incident_type: 'availability', severity: 'high', description: 'seen at 10:00' }))
    expect(plan).toMatchObject({ incident: { kind: 'new', title: 'Refunds down' }, hypothesis: { kind: 'new', title: 'Refunds down' }, description: 'seen at 10:00' })
  })

  it('auto-selects a lone hypothesis only', () => {
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }], '')).toBe(HYPOTHESIS)
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }, { id: INCIDENT }], '')).toBe('')
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }], 'new')).toBe('new')
  })

  it('sends a failed plain post back with its values and keeps return paths local', () => {
    const href = linkPageHref([['type', 'check'], ['check_id', CHECK]], values({ incident: 'new', severity: 'high' }), { incident_type: TYPE_REQUIRED }, '/health?checkId=x')
    const params = new URL(href, 'http://x').searchParams
    expect(params.get('incident')).toBe('new')
    expect(params.get('err_incident_type')).toBe(TYPE_REQUIRED)
    expect(params.get('returnTo')).toBe('/health?checkId=x')
    expect(safeReturnTo('//evil.example')).toBe('')
    expect(safeReturnTo('https://evil.example')).toBe('')
    expect(safeReturnTo('/catalog/1')).toBe('/catalog/1')
  })
})

describe('incident detail', () => {
  it('nests root > factor > solution and surfaces orphans as roots', () => {
    const rows = [
      { id: 's', parent_id: 'f', type: 'solution', created_at: '3' },
      { id: 'r', parent_id: null, type: 'root', created_at: '1' },
      { id: 'f', parent_id: 'r', type: 'factor', created_at: '2' },
      { id: 'o', parent_id: 'gone', type: 'factor', created_at: '4' },
    ]
    const tree = buildHypothesisTree(rows)
    expect(tree.map((node) => node.id)).toEqual(['r', 'o'])
    expect(tree[0]!.children[0]!.id).toBe('f')
    expect(tree[0]!.children[0]!.children[0]!.id).toBe('s')
    expect(getChildHypothesisType('root')).toBe('factor')
    expect(getChildHypothesisType('factor')).toBe('solution')
    expect(getChildHypothesisType('solution')).toBeNull()
  })

  it('links evidence by type', () => {
    expect(getEvidenceLink({ type: 'check', check_id: CHECK })).toEqual({ href: `/health?checkId=${CHECK}&timeRange=1h`, label: 'Open check' })
    expect(getEvidenceLink({ type: 'config', config_id: CHECK })?.href).toBe(`/catalog/${CHECK}`)
    expect(getEvidenceLink({ type: 'topology', component_id: CHECK })?.href).toBe(`/topology/${CHECK}`)
    expect(getEvidenceLink({ type: 'log' })).toBeNull()
  })
})

import { getZodConstraint, parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { CreateIncidentSchema, getLinkConstraint, getLinkPlan, IncidentActionSchema, LinkSchema } from '#app/lib/incident-forms.ts'
import { buildHypothesisTree, getChildHypothesisType, getEvidenceLink, shapeHypothesisTree } from '#app/lib/incident-detail.ts'
import {
  getDefaultHypothesis,
  getSeverityBadge,
  HYPOTHESIS_REQUIRED,
  INCIDENT_REQUIRED,
  parseEvidenceTarget,
  parseIncidentListParams,
  safeReturnTo,
  SEVERITY_REQUIRED,
  toIlikeTerm,
  TYPE_REQUIRED,
  type EvidenceTarget,
} from '#app/lib/incidents.ts'

const CHECK = '2a851233-b002-4624-a6a1-776b8cf6dc1e'
const INCIDENT = '17df4ad2-6040-46a2-add4-a75032a4e222'
const HYPOTHESIS = '124d16db-6f8a-42a0-b94b-0c2dea80d727'
const target: EvidenceTarget = { type: 'check', check_id: CHECK, description: 'refunds-api-health is unhealthy' }

/** A form post as the browser sends it (empty fields included). */
function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  return data
}

function errorsOf<Schema extends Parameters<typeof parseWithZod>[1]['schema']>(schema: Schema, fields: Record<string, string>) {
  const submission = parseWithZod(form(fields), { schema })
  return submission.status === 'success' ? null : submission.error
}

function valueOf<Schema extends Parameters<typeof parseWithZod>[1]['schema']>(schema: Schema, fields: Record<string, string>) {
  const submission = parseWithZod(form(fields), { schema })
  if (submission.status !== 'success') throw new Error(`expected a valid form, got ${JSON.stringify(submission.error)}`)
  return submission.value
}

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

  it('keeps a search term from breaking the or=(...) filter', () => {
    expect(toIlikeTerm(' api,(x)* ')).toBe('api  x')
  })
})

describe('create incident', () => {
  it('answers the spec messages and defaults the status to open', () => {
    expect(errorsOf(CreateIncidentSchema, { title: ' ', type: '', severity: '', description: '' })).toEqual({
      title: ['This field is required'],
      type: [TYPE_REQUIRED],
      severity: [SEVERITY_REQUIRED],
    })
    expect(valueOf(CreateIncidentSchema, { title: ' Outage ', type: 'availability', severity: 'high' })).toEqual({
      title: 'Outage',
      type: 'availability',
      severity: 'high',
      status: 'open',
      description: '',
    })
    expect(errorsOf(CreateIncidentSchema, { title: 'x', type: 'availability', severity: 'high', status: 'done' })).toHaveProperty('status')
    expect(errorsOf(CreateIncidentSchema, { title: 'x', type: 'nonsense', severity: 'medium' })).toEqual({ type: [TYPE_REQUIRED], severity: [SEVERITY_REQUIRED] })
  })

  it('sends the browser native constraints for the required fields', () => {
    const constraint = getZodConstraint(CreateIncidentSchema)
    expect(constraint.title).toMatchObject({ required: true, minLength: 1, maxLength: 500 })
    expect(constraint.type?.required).toBe(true)
    expect(constraint.severity?.required).toBe(true)
    expect(constraint.status?.required).toBe(false)
  })
})

describe('incident detail forms', () => {
  it('tells the forms apart by intent and refuses an unknown one', () => {
    expect(errorsOf(IncidentActionSchema, { intent: 'nope' })).toEqual({ intent: ['Unknown action'] })
    expect(errorsOf(IncidentActionSchema, { intent: 'comment', comment: '  ' })).toEqual({ comment: ['This field is required'] })
    expect(errorsOf(IncidentActionSchema, { intent: 'add-responder', responder: '' })).toEqual({ responder: ['This field is required'] })
    expect(errorsOf(IncidentActionSchema, { intent: 'details', severity: '', type: '' })).toEqual({ severity: [SEVERITY_REQUIRED], type: [TYPE_REQUIRED] })
    expect(errorsOf(IncidentActionSchema, { intent: 'add-hypothesis', type: 'root', title: '' })).toEqual({ title: ['This field is required'] })
  })

  it('parses each intent into what the write needs', () => {
    expect(valueOf(IncidentActionSchema, { intent: 'add-responder', responder: `team:${INCIDENT}` })).toEqual({ intent: 'add-responder', responder: { kind: 'team', id: INCIDENT } })
    expect(valueOf(IncidentActionSchema, { intent: 'evidence-dod', id: HYPOTHESIS, value: 'false' })).toEqual({ intent: 'evidence-dod', id: HYPOTHESIS, value: false })
    // Stored incidents may spell medium in lower case; an empty person select clears the role.
    expect(valueOf(IncidentActionSchema, { intent: 'details', severity: 'medium', type: 'cost', commander_id: '', communicator_id: HYPOTHESIS })).toEqual({
      intent: 'details',
      severity: 'medium',
      type: 'cost',
      communicator_id: HYPOTHESIS,
    })
    expect(valueOf(IncidentActionSchema, { intent: 'add-hypothesis', type: 'factor', title: ' Expired ', parent_id: HYPOTHESIS })).toEqual({
      intent: 'add-hypothesis',
      type: 'factor',
      title: 'Expired',
      parent_id: HYPOTHESIS,
    })
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
    expect(errorsOf(LinkSchema, { incident: '', note: '' })).toMatchObject({ incident: [INCIDENT_REQUIRED] })
    expect(errorsOf(LinkSchema, { incident: 'not-an-id' })).toMatchObject({ incident: [INCIDENT_REQUIRED] })
    expect(errorsOf(LinkSchema, { incident: INCIDENT })).toEqual({ hypothesis: [HYPOTHESIS_REQUIRED] })
    expect(errorsOf(LinkSchema, { incident: INCIDENT, hypothesis: 'new', hypothesis_title: ' ' })).toEqual({ hypothesis: [HYPOTHESIS_REQUIRED] })
    expect(getLinkPlan(target, valueOf(LinkSchema, { incident: INCIDENT, hypothesis: HYPOTHESIS, note: '' }))).toMatchObject({
      incident: { kind: 'existing', id: INCIDENT },
      hypothesis: { kind: 'existing', id: HYPOTHESIS },
      description: target.description,
    })
    expect(getLinkPlan(target, valueOf(LinkSchema, { incident: INCIDENT, hypothesis: 'new', hypothesis_title: 'DNS' })).hypothesis).toEqual({ kind: 'new', title: 'DNS' })
  })

  it('asks a new incident for title, type and severity and names its hypothesis after it', () => {
    expect(errorsOf(LinkSchema, { incident: 'new', incident_title: '', incident_type: '', severity: '' })).toEqual({
      incident_title: [INCIDENT_REQUIRED],
      incident_type: [TYPE_REQUIRED],
      severity: [SEVERITY_REQUIRED],
    })
    const value = valueOf(LinkSchema, { incident: 'new', incident_title: 'Refunds down', incident_type: 'availability', severity: 'high', note: 'seen at 10:00' })
    expect(getLinkPlan(target, value)).toMatchObject({ incident: { kind: 'new', title: 'Refunds down' }, hypothesis: { kind: 'new', title: 'Refunds down' }, description: 'seen at 10:00' })
  })

  it('makes each branch required on screen', () => {
    const constraint = getLinkConstraint()
    for (const name of ['incident', 'hypothesis', 'incident_title', 'incident_type', 'severity'] as const) expect(constraint[name]?.required).toBe(true)
    expect(constraint.hypothesis_title?.required).toBe(false)
    expect(constraint.note?.required).toBe(false)
  })

  it('auto-selects a lone hypothesis only', () => {
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }], '')).toBe(HYPOTHESIS)
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }, { id: INCIDENT }], '')).toBe('')
    expect(getDefaultHypothesis([{ id: HYPOTHESIS }], 'new')).toBe('new')
  })

  it('keeps return paths local', () => {
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

  it('shapes the tree on the server: child types, and each evidence with its link (a change without config_id links through its embed)', () => {
    const change = { type: 'config_change', config_change: { config_id: CHECK } }
    const tree = shapeHypothesisTree([
      { id: 'f', parent_id: 'r', type: 'factor', created_at: '2', evidences: [change] },
      { id: 'r', parent_id: null, type: 'root', created_at: '1', evidences: [{ type: 'check', check_id: CHECK }, { type: 'log' }] },
    ])
    expect(tree).toHaveLength(1)
    const [root] = tree
    expect(root!.childType).toBe('factor')
    expect(root!.evidences.map((evidence) => evidence.link?.label ?? null)).toEqual(['Open check', null])
    const factor = root!.children[0]!
    expect(factor.childType).toBe('solution')
    expect(factor.evidences[0]!.link).toEqual({ href: `/catalog/${CHECK}/changes`, label: 'Open changes' })
  })
})

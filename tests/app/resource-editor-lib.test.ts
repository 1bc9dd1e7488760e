import { describe, expect, it } from 'vitest'
import {
  buildPayload,
  createPayload,
  getEditorKind,
  jobDetailsTabs,
  jobStatusTone,
  newResourceYaml,
  parseResourceYaml,
  RESOURCE_KINDS,
  sourceInfo,
  toResourceYaml,
  updatePayload,
} from '#app/lib/resource-editor.ts'

const canary = RESOURCE_KINDS.canaries
const rules = RESOURCE_KINDS.incident_rules

const CANARY_DOC = `apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata:
  name: http-check
  namespace: web
  labels:
    team: platform
    tier: 1
spec:
  interval: 30
  http:
    - name: healthz
      url: http://127.0.0.1:4000/healthz
`

describe('editor kinds', () => {
  it('serves the settings tables but not config scrapers or teams', () => {
    expect(getEditorKind('canaries')?.listRelation).toBe('canaries_with_status')
    expect(getEditorKind('incident_rules')?.listRelation).toBe('incident_rules')
    expect(getEditorKind('logging_backends')?.table).toBe('logging_backends')
    expect(getEditorKind('config_scrapers')).toBeNull()
    expect(getEditorKind('teams')).toBeNull()
    expect(getEditorKind('__proto__')).toBeNull()
    expect(getEditorKind(undefined)).toBeNull()
  })

  it('lists canaries from the view that carries their status', () => {
    expect(canary.listRelation).toBe('canaries_with_status')
    expect(rules.listRelation).toBe('incident_rules')
  })
})

describe('parseResourceYaml', () => {
  it('takes metadata and spec from a whole document', () => {
    const result = parseResourceYaml(canary, CANARY_DOC)
    expect(result).toEqual({
      ok: true,
      value: {
        metadata: { name: 'http-check', namespace: 'web', labels: { team: 'platform', tier: '1' } },
        spec: { interval: 30, http: [{ name: 'healthz', url: 'http://127.0.0.1:4000/healthz' }] },
      },
    })
  })

  it('treats anything else as a bare spec', () => {
    const result = parseResourceYaml(canary, 'interval: 60\nhttp:\n  - name: a\n    url: http://x\n')
    expect(result).toEqual({ ok: true, value: { metadata: null, spec: { interval: 60, http: [{ name: 'a', url: 'http://x' }] } } })
  })

  it('accepts JSON too', () => {
    const result = parseResourceYaml(rules, '{"checks": [{"name": "x"}]}')
    expect(result.ok && result.value.spec).toEqual({ checks: [{ name: 'x' }] })
  })

  it('reports syntax errors with their line', () => {
    const result = parseResourceYaml(canary, 'interval: 30\nhttp:\n  - name: a\n   url: [unclosed\n')
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.field).toBe('spec')
    expect(result.error.message).toMatch(/^Invalid YAML at line \d+, column \d+: /)
    expect(result.error.line).toBeGreaterThanOrEqual(3)
  })

  it('refuses empty text, lists, scalars, several documents and another kind', () => {
    expect(parseResourceYaml(canary, '  \n')).toMatchObject({ ok: false, error: { message: 'The spec is empty.' } })
    expect(parseResourceYaml(canary, '- a\n- b\n')).toMatchObject({ ok: false, error: { message: /must be a YAML mapping/ } })
    expect(parseResourceYaml(canary, 'just text')).toMatchObject({ ok: false, error: { message: /must be a YAML mapping/ } })
    expect(parseResourceYaml(canary, `${CANARY_DOC}---\n${CANARY_DOC}`)).toMatchObject({ ok: false, error: { message: /found 2 documents/ } })
    expect(parseResourceYaml(canary, 'kind: Topology\nmetadata: {name: x}\nspec: {}\n')).toMatchObject({ ok: false, error: { message: 'kind: expected Canary, got "Topology"' } })
    expect(parseResourceYaml(canary, 'kind: Canary\nmetadata: {name: 3}\nspec: {}\n')).toMatchObject({ ok: false, error: { message: 'metadata.name: must be a string' } })
    expect(parseResourceYaml(canary, 'kind: Canary\nmetadata: {name: a}\nspec: [1]\n')).toMatchObject({ ok: false, error: { message: 'spec: must be a mapping' } })
  })
})

describe('buildPayload', () => {
  it('creates from a whole document', () => {
    const result = buildPayload(canary, { yaml: CANARY_DOC })
    expect(result).toEqual({
      ok: true,
      payload: { name: 'http-check', namespace: 'web', labels: { team: 'platform', tier: '1' }, spec: { interval: 30, http: [{ name: 'healthz', url: 'http://127.0.0.1:4000/healthz' }] } },
    })
  })

  it('creates from a bare spec plus the name fields, defaulting the namespace', () => {
    const result = buildPayload(canary, { yaml: 'interval: 30\n', name: ' probe ', namespace: '' })
    expect(result).toEqual({ ok: true, payload: { name: 'probe', namespace: 'default', spec: { interval: 30 } } })
  })

  it('needs a name and refuses disagreeing or malformed names', () => {
    expect(buildPayload(canary, { yaml: 'interval: 30\n' })).toMatchObject({ ok: false, error: { field: 'name', message: /A name is required/ } })
    expect(buildPayload(canary, { yaml: CANARY_DOC, name: 'other' })).toMatchObject({ ok: false, error: { field: 'name', message: /disagree/ } })
    expect(buildPayload(canary, { yaml: CANARY_DOC, namespace: 'ops' })).toMatchObject({ ok: false, error: { field: 'namespace', message: /disagree/ } })
    expect(buildPayload(canary, { yaml: 'interval: 30\n', name: 'Bad Name' })).toMatchObject({ ok: false, error: { field: 'name' } })
  })

  it('allows free-text names for incident rules and leaves out namespace and labels', () => {
    const result = buildPayload(rules, { yaml: 'kind: IncidentRule\nmetadata:\n  name: Page on failures\n  labels: {a: b}\nspec:\n  checks: [{name: "*"}]\n' })
    expect(result).toEqual({ ok: true, payload: { name: 'Page on failures', spec: { checks: [{ name: '*' }] } } })
  })

  it('keeps name and namespace of an existing resource', () => {
    const existing = { name: 'http-check', namespace: 'web' }
    expect(buildPayload(canary, { yaml: 'interval: 45\n', name: 'ignored', namespace: 'ignored' }, existing)).toEqual({
      ok: true,
      payload: { name: 'http-check', namespace: 'web', spec: { interval: 45 } },
    })
    expect(buildPayload(canary, { yaml: CANARY_DOC.replace('name: http-check', 'name: renamed') }, existing)).toMatchObject({
      ok: false,
      error: { field: 'spec', message: /metadata.name: the name cannot be changed/ },
    })
    expect(buildPayload(canary, { yaml: CANARY_DOC.replace('namespace: web', 'namespace: ops') }, existing)).toMatchObject({
      ok: false,
      error: { message: /metadata.namespace: the namespace cannot be changed/ },
    })
  })

  it('passes YAML errors through', () => {
    expect(buildPayload(canary, { yaml: 'a: [', name: 'x' })).toMatchObject({ ok: false, error: { field: 'spec', message: /Invalid YAML at line/ } })
  })
})

describe('payloads', () => {
  it('creates as UI, by the user', () => {
    expect(createPayload({ name: 'a', spec: {} }, 'user-1')).toEqual({ name: 'a', spec: {}, source: 'UI', created_by: 'user-1' })
  })

  it('strips bookkeeping and identity columns from updates', () => {
    const body = updatePayload({ id: '1', name: 'a', namespace: 'b', spec: { x: 1 }, labels: {}, created_by: 'u', created_at: 't', updated_at: 't' })
    expect(body).toEqual({ spec: { x: 1 }, labels: {} })
  })
})

describe('documents', () => {
  it('round-trips a row through the editor text', () => {
    const row = { id: 'x', name: 'http-check', namespace: 'web', labels: { team: 'platform' }, spec: { interval: 30 } }
    const text = toResourceYaml(canary, row)
    expect(text).toContain('kind: Canary')
    const back = buildPayload(canary, { yaml: text }, row)
    expect(back).toEqual({ ok: true, payload: { name: 'http-check', namespace: 'web', labels: { team: 'platform' }, spec: { interval: 30 } } })
  })

  it('leaves namespace out of unnamespaced kinds and gives a create template', () => {
    expect(toResourceYaml(rules, { name: 'r', namespace: 'x', spec: { checks: [] } })).not.toContain('namespace')
    expect(newResourceYaml(canary)).toContain('namespace: default')
  })
})

describe('sourceInfo', () => {
  it('lets the UI edit its own rows only', () => {
    expect(sourceInfo({ source: 'UI' })).toEqual({ readOnly: false, origin: 'the UI' })
    expect(sourceInfo({ source: null })).toEqual({ readOnly: false, origin: 'the UI' })
    expect(sourceInfo({ source: 'KubernetesCRD' })).toEqual({ readOnly: true, origin: 'a Kubernetes custom resource' })
    expect(sourceInfo({ source: 'ConfigFile' })).toEqual({ readOnly: true, origin: 'a local file' })
    expect(sourceInfo({ source: 'Demo' })).toEqual({ readOnly: true, origin: 'the demo data' })
    expect(sourceInfo({ source: 'component=abc' })).toEqual({ readOnly: true, origin: 'a component', href: '/topology/abc' })
    expect(sourceInfo({ source: 'UI', agent_id: '0190-agent' })).toEqual({ readOnly: true, origin: 'an agent', href: '/settings/agents?id=0190-agent' })
    expect(sourceInfo({ source: 'UI', agent_id: '00000000-0000-0000-0000-000000000000' }).readOnly).toBe(false)
    expect(sourceInfo({ source: 'something-else' })).toEqual({ readOnly: true, origin: 'something-else' })
  })
})

describe('job history', () => {
  it('colours statuses', () => {
    expect(jobStatusTone('SUCCESS')).toBe('success')
    expect(jobStatusTone('WARNING')).toBe('warning')
    expect(jobStatusTone('FAILED')).toBe('danger')
    expect(jobStatusTone('RUNNING')).toBe('secondary')
    expect(jobStatusTone('STOPPED')).toBe('outline')
    expect(jobStatusTone(null)).toBe('outline')
  })

  it('shows only the detail tabs with content', () => {
    expect(jobDetailsTabs(null)).toEqual([])
    expect(jobDetailsTabs({ errors: [], summary: {} })).toEqual([])
    expect(jobDetailsTabs({ errors: ['timeout'], scrape_summary: { a: 1 } }).map((tab) => tab.label)).toEqual(['Errors', 'Scrape Summary'])
    expect(jobDetailsTabs({ summary: { added: 2 } }).map((tab) => tab.id)).toEqual(['summary'])
  })
})

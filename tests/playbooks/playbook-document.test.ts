import { getZodConstraint } from '@conform-to/zod'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import {
  parsePlaybookDocument,
  parsePlaybookSpec,
  playbookSpecIssues,
  PlaybookValidationError,
  type PlaybookDocumentSpec,
} from '#contract/playbook/playbook-document.ts'
import type { PlaybookSpec } from '#server/backend/playbooks/playbook-model.ts'
import { PlaybookEditorFormSchema } from '#app/lib/playbook-editor-form.ts'
import { PlaybookEditorShape } from '#app/lib/playbook-editor-form-shape.ts'

/** The example of resource-specs §2.8, as written there. */
const EXAMPLE = `apiVersion: mission-control.flanksource.com/v1
kind: Playbook
metadata: {name: restart-service, namespace: ops}
spec:
  title: Restart a service
  category: Remediation
  icon: refresh
  timeout: 15m
  configs:
    - types: ["Linux::Service"]
  parameters:
    - name: reason
      label: Why restart?
      type: text
      required: true
    - name: wait
      type: duration
      default: "30s"
      properties: {min: "0s", max: "10m"}
  approval:
    type: any
    approvers: {teams: [sre]}
  actions:
    - name: restart
      timeout: 2m
      retry: {limit: 2, duration: 10s, exponent: {multiplier: 2}, jitter: 10}
      exec:
        script: systemctl restart {{.config.name}}
    - name: verify
      delay: params.wait
      http:
        url: http://127.0.0.1:8080/healthz
    - name: report-failure
      if: failure()
      notification:
        connection: connection://ops/slack
        title: "Restart of {{.config.name}} failed"
        message: "Reason given: {{.params.reason}}"
`

const exec = (name: string) => ({ name, exec: { script: 'echo hi' } })
const spec = (extra: Record<string, unknown>) => ({ actions: [exec('one')], ...extra })

function refusal(value: unknown): string {
  const verdict = parsePlaybookSpec(value)
  if (verdict.success) throw new Error(`expected a refusal of ${JSON.stringify(value)}`)
  return verdict.message
}

describe('the Playbook document', () => {
  it('accepts the example of §2.8 and reads its metadata and spec', () => {
    const playbook = parsePlaybookDocument(parseYaml(EXAMPLE))
    expect(playbook).toMatchObject({ name: 'restart-service', namespace: 'ops', labels: {} })
    expect(playbook.spec.actions.map((action) => action.name)).toEqual(['restart', 'verify', 'report-failure'])
    expect(playbook.spec.actions[0]!.retry).toEqual({ limit: 2, duration: '10s', exponent: { multiplier: 2 }, jitter: 10 })
    expect(playbook.spec.approval).toEqual({ type: 'any', approvers: { teams: ['sre'] } })
  })

  it('keeps fields it does not read, and gives the runner a PlaybookSpec', () => {
    const verdict = parsePlaybookSpec({ ...spec({}), ui: { layout: 'wide' }, somethingNew: [1] })
    expect(verdict).toMatchObject({ success: true, spec: { ui: { layout: 'wide' }, somethingNew: [1] } })
    expectTypeOf<PlaybookDocumentSpec>().toMatchTypeOf<PlaybookSpec>()
  })

  it('refuses a document of another kind or version, naming the field', () => {
    const document = parseYaml(EXAMPLE) as Record<string, unknown>
    expect(() => parsePlaybookDocument({ ...document, kind: 'Canary' })).toThrow(/kind: must be Playbook/)
    expect(() => parsePlaybookDocument({ ...document, apiVersion: 'v1' })).toThrow(/apiVersion: must be mission-control.flanksource.com\/v1/)
    expect(() => parsePlaybookDocument({ ...document, metadata: { namespace: 'ops' } })).toThrow(/metadata.name: is required/)
    try {
      parsePlaybookDocument({ ...document, spec: { actions: [] } }, [1])
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(PlaybookValidationError)
      expect((error as PlaybookValidationError).issues).toEqual([{ path: '[1].spec.actions', message: 'needs at least one action' }])
    }
  })
})

describe('the validation rules of §2.1, each naming its field', () => {
  it('needs at least one action', () => {
    expect(refusal({ title: 'x' })).toBe('playbook validation failed: spec.actions: is required')
    expect(refusal({ actions: [] })).toBe('playbook validation failed: spec.actions: needs at least one action')
  })

  it('gives every action exactly one primary type; notification and gitops may stand alone or beside one', () => {
    expect(refusal({ actions: [{ name: 'a' }] })).toMatch(/^playbook validation failed: spec\.actions\[0\]: has no action type; set one of exec, http, sql/)
    expect(refusal({ actions: [exec('a'), { name: 'b', exec: { script: 'x' }, http: { url: 'http://x' } }] })).toBe(
      'playbook validation failed: spec.actions[1]: has more than one action type (exec, http); an action has exactly one',
    )
    const alone = parsePlaybookSpec({ actions: [{ name: 'n', notification: { url: 'slack://x' } }, { name: 'g', gitops: { repo: { url: 'https://git' } } }] })
    expect(alone.success).toBe(true)
    const beside = parsePlaybookSpec({ actions: [{ name: 'both', exec: { script: 'x' }, notification: { connection: 'connection://ops/slack' } }] })
    expect(beside.success).toBe(true)
  })

  it('checks each action type’s fields', () => {
    expect(refusal({ actions: [{ name: 'a', exec: {} }] })).toBe('playbook validation failed: spec.actions[0].exec.script: is required')
    expect(refusal({ actions: [{ name: 'a', http: { method: 'FETCH', url: 'http://x' } }] })).toMatch(/spec\.actions\[0\]\.http\.method: must be one of GET, POST/)
    expect(refusal({ actions: [{ name: 'a', sql: { connection: 'c' } }] })).toBe('playbook validation failed: spec.actions[0].sql.query: is required')
    expect(refusal({ actions: [{ name: 'a', logs: { start: 'now-1h' } }] })).toBe('playbook validation failed: spec.actions[0].logs: set exactly one of loki, cloudwatch, opensearch, kubernetes')
    expect(refusal({ actions: [{ name: 'a', ai: { backend: 'skynet' } }] })).toMatch(/spec\.actions\[0\]\.ai\.backend: must be one of anthropic/)
    expect(refusal({ actions: [{ name: 'a', pod: { name: 'p' } }] })).toBe('playbook validation failed: spec.actions[0].pod.spec: is required')
    expect(refusal({ actions: [{ name: 'a', exec: { script: 'x' }, retry: { limit: 1, jitter: 150 } }] })).toBe('playbook validation failed: spec.actions[0].retry.jitter: must be between 0 and 100')
    expect(refusal({ actions: [{ name: 'a', exec: { script: 'x' }, contentType: 'image/png' }] })).toMatch(/spec\.actions\[0\]\.contentType: must be one of text\/plain/)
  })

  it('wants action names unique and without leading or trailing spaces', () => {
    expect(refusal({ actions: [exec('restart'), exec('check'), exec('restart')] })).toBe(
      'playbook validation failed: spec.actions[2].name: duplicate action name "restart" (also actions[0])',
    )
    expect(refusal({ actions: [exec(' restart')] })).toBe('playbook validation failed: spec.actions[0].name: must not have leading or trailing spaces')
    expect(refusal({ actions: [exec('restart ')] })).toBe('playbook validation failed: spec.actions[0].name: must not have leading or trailing spaces')
    expect(refusal({ actions: [{ exec: { script: 'x' } }] })).toBe('playbook validation failed: spec.actions[0].name: is required')
  })

  it('keeps duration parameters consistent: not negative, min ≤ max, default and options within', () => {
    const param = (fields: Record<string, unknown>) => spec({ parameters: [{ name: 'ok', type: 'text' }, { name: 'wait', type: 'duration', ...fields }] })
    expect(parsePlaybookSpec(param({ default: '30s', properties: { min: '0s', max: '10m', options: ['1m', '5m'] } })).success).toBe(true)
    expect(refusal(param({ properties: { min: '-1m' } }))).toBe('playbook validation failed: spec.parameters[1].properties.min: must not be negative')
    expect(refusal(param({ properties: { min: '10m', max: '1m' } }))).toBe('playbook validation failed: spec.parameters[1].properties.min: must not be more than max (1m)')
    expect(refusal(param({ default: '1h', properties: { max: '10m' } }))).toBe('playbook validation failed: spec.parameters[1].default: the default is above max (10m)')
    expect(refusal(param({ default: '10s', properties: { min: '1m' } }))).toBe('playbook validation failed: spec.parameters[1].default: the default is below min (1m)')
    expect(refusal(param({ properties: { max: '10m', options: ['5m', '20m'] } }))).toBe('playbook validation failed: spec.parameters[1].properties.options[1]: the option is above max (10m)')
    expect(refusal(param({ default: 'soon' }))).toBe('playbook validation failed: spec.parameters[1].default: "soon" is not a duration (e.g. 30s, 5m, 1h)')
    // A templated default is judged when a run renders it.
    expect(parsePlaybookSpec(param({ default: '{{.config.tags.wait}}', properties: { max: '10m' } })).success).toBe(true)
    expect(refusal(spec({ parameters: [{ name: 'p', type: 'dice' }] }))).toMatch(/spec\.parameters\[0\]\.type: must be one of text, checkbox, code/)
  })

  it('wants schedule triggers to be valid cron (CRON_TZ= allowed)', () => {
    expect(parsePlaybookSpec(spec({ on: { schedule: [{ schedule: 'CRON_TZ=Europe/Berlin 0 6 * * 1-5' }, { schedule: '@every 1h' }, { schedule: '@daily' }] } })).success).toBe(true)
    expect(refusal(spec({ on: { schedule: [{ schedule: '8 46 *' }] } }))).toBe(
      'playbook validation failed: spec.on.schedule[0].schedule: invalid cron "8 46 *": expected 5 fields (minute hour day month weekday), got 3',
    )
    expect(refusal(spec({ on: { schedule: [{ schedule: '61 * * * *' }] } }))).toMatch(/^playbook validation failed: spec\.on\.schedule\[0\]\.schedule: invalid cron "61 \* \* \* \*"/)
    expect(refusal(spec({ on: { schedule: [{ schedule: '@never' }] } }))).toBe('playbook validation failed: spec.on.schedule[0].schedule: @never is not a playbook schedule')
  })

  it('refuses approvers on a scheduled playbook', () => {
    const scheduled = { on: { schedule: [{ schedule: '@hourly' }] } }
    expect(refusal(spec({ ...scheduled, approval: { type: 'any', approvers: { people: ['sre@example.com'] } } }))).toBe(
      'playbook validation failed: spec.approval.approvers: a playbook with on.schedule cannot have approvers',
    )
    expect(parsePlaybookSpec(spec({ ...scheduled, approval: { approvers: { people: [], teams: [] } } })).success).toBe(true)
  })

  it('parses durations and reads the triggers', () => {
    expect(refusal(spec({ timeout: 'forever' }))).toBe('playbook validation failed: spec.timeout: "forever" is not a duration (e.g. 30s, 5m, 1h)')
    expect(refusal({ actions: [{ ...exec('a'), timeout: '-1m' }] })).toBe('playbook validation failed: spec.actions[0].timeout: must not be negative')
    expect(refusal(spec({ on: { canary: [{ event: 'exploded' }] } }))).toBe('playbook validation failed: spec.on.canary[0].event: must be one of passed, failed')
    expect(refusal(spec({ on: { config: [{ event: 'passed' }] } }))).toMatch(/spec\.on\.config\[0\]\.event: must be one of created, updated, changed, deleted/)
    expect(refusal(spec({ on: { webhook: { path: 'a/b' } } }))).toMatch(/spec\.on\.webhook\.path: must be one URL path segment/)
    expect(refusal(spec({ on: { webhook: { path: 'hook', authentication: { basic: { username: 'u', password: 'p' }, jwt: { jwksUri: 'https://x' } } } } }))).toBe(
      'playbook validation failed: spec.on.webhook.authentication: set exactly one of basic, github, svix, jwt',
    )
    const triggers = {
      on: {
        canary: [{ event: 'failed', labels: { critical: 'true' }, filter: 'check.type == "http"' }],
        config: [{ event: 'unhealthy' }],
        component: [{ event: 'warning' }],
        webhook: { path: 'deploy-done', authentication: { github: { token: { valueFrom: { secretKeyRef: { name: 'gh', key: 'token' } } } } } },
      },
    }
    expect(parsePlaybookSpec(spec(triggers)).success).toBe(true)
  })

  it('lists every problem for the editor', () => {
    const issues = playbookSpecIssues({ actions: [exec('a'), exec('a')], timeout: 'x' })
    expect(issues.map((issue) => issue.path)).toEqual(['spec.timeout', 'spec.actions[1].name'])
    expect(playbookSpecIssues({ actions: [exec('a'), exec('a')] })).toEqual([{ path: 'spec.actions[1].name', message: 'duplicate action name "a" (also actions[0])' }])
  })
})

describe('the editor form', () => {
  it('renders the constraints its schema derives (decision 016)', () => {
    expect(JSON.parse(JSON.stringify(PlaybookEditorShape.constraint))).toEqual(JSON.parse(JSON.stringify(getZodConstraint(PlaybookEditorFormSchema))))
  })
})

import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { chartSchema, checkValues, generateGitops, helmCommands, readGenerateRequest, readValues, setFlags, shellQuote, valueFields, valueOverrides } from '#app/lib/integration-gitops.ts'
import { parseIntegrationSearch } from '#app/lib/integration-search.ts'
import { GITOPS_CHART_IDS, GITOPS_CHOICES, NAMESPACE_PATTERN } from '#app/lib/integration-vocabulary.ts'

/**
 * The Add Integration modal's GitOps forms (spec 001 §2): the shipped chart schemas, the values
 * form derived from them, validation of the submitted values, and the Flux manifests and Helm CLI
 * commands generated from a namespace and values.
 */

function form(entries: Array<[string, string]>): URLSearchParams {
  return new URLSearchParams(entries)
}

describe('chart schemas', () => {
  it('ships a loadable values schema for every GitOps choice, in the spec order', () => {
    expect(GITOPS_CHOICES.map((choice) => choice.label)).toEqual(['AWS', 'Azure', 'Prometheus', 'Flux', 'Kubernetes', 'Mission Control'])
    for (const id of GITOPS_CHART_IDS) {
      const schema = chartSchema(id)
      expect(schema.type).toBe('object')
      expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0)
    }
  })

  it('derives the form: kinds, required marks, defaults and nested groups', () => {
    const fields = valueFields(chartSchema('kubernetes'))
    expect(fields.map((field) => [field.path, field.kind, field.required])).toEqual([
      ['clusterName', 'string', true],
      ['prometheusURL', 'string', false],
      ['scraper', 'object', false],
      ['topology', 'object', false],
      ['playbooks', 'object', false],
    ])
    const scraper = fields.find((field) => field.path === 'scraper')
    expect(scraper?.kind === 'object' ? scraper.fields.map((field) => [field.path, field.kind === 'object' ? null : field.defaultValue]) : null).toEqual([
      ['scraper.name', 'kubernetes'],
      ['scraper.schedule', '@every 15m'],
    ])
    const playbooks = fields.find((field) => field.path === 'playbooks')
    expect(playbooks?.kind === 'object' ? playbooks.fields[0] : null).toMatchObject({ kind: 'boolean', path: 'playbooks.enabled', defaultValue: true })
    const missionControl = valueFields(chartSchema('mission-control'))
    expect(missionControl.find((field) => field.path === 'authProvider')).toMatchObject({ kind: 'enum', options: ['kratos', 'clerk', 'basic'], defaultValue: 'kratos' })
    expect(missionControl.find((field) => field.path === 'replicas')).toMatchObject({ kind: 'integer', min: 1, max: 10 })
    expect(valueFields(chartSchema('aws')).find((field) => field.path === 'region')).toMatchObject({ kind: 'list' })
  })
})

describe('values validation', () => {
  it('reads form entries as typed values: numbers, checkboxes (last entry wins), lists, empty as none', () => {
    const schema = chartSchema('mission-control')
    const values = readValues(
      form([
        ['values.replicas', '3'],
        ['values.db.create', 'false'],
        ['values.db.storage', ''],
        ['values.global.ui.host', ' ops.example.org '],
      ]),
      schema,
    )
    expect(values).toEqual({ replicas: 3, db: { create: false }, global: { ui: { host: 'ops.example.org' } } })
    expect(readValues(form([['values.region', 'eu-west-1, us-east-1\n']]), chartSchema('aws'))).toEqual({ region: ['eu-west-1', 'us-east-1'] })
    expect(readValues(form([['values.skipTLSVerify', 'false'], ['values.skipTLSVerify', 'true']]), chartSchema('aws'))).toEqual({ skipTLSVerify: true })
  })

  it('refuses what the schema refuses, on the field that is wrong', () => {
    const schema = chartSchema('mission-control')
    expect(checkValues(schema, { replicas: 0, authProvider: 'ldap', db: { storage: 'lots' } })).toEqual({
      ok: false,
      errors: {
        authProvider: ['Must be one of kratos, clerk, basic'],
        'db.storage': ['Must match ^\\d+(Mi|Gi|Ti)$'],
        replicas: ['Must be at least 1'],
      },
    })
    expect(checkValues(schema, { replicas: 'many' })).toEqual({ ok: false, errors: { replicas: ['Must be a number'] } })
    expect(checkValues(schema, { replicas: 1.5 })).toEqual({ ok: false, errors: { replicas: ['Must be a whole number'] } })
    expect(checkValues(chartSchema('azure'), {})).toEqual({ ok: false, errors: { subscriptionID: ['Required'], tenantID: ['Required'] } })
    expect(checkValues(chartSchema('aws'), { region: ['eu-west-1', 'moon'] })).toEqual({ ok: false, errors: { region: ['Must match ^[a-z]{2}(-[a-z]+)+-\\d$'] } })
    expect(checkValues(chartSchema('flux'), { topologyName: 'flux', image: 'x' })).toEqual({ ok: false, errors: { image: ['Not a value of this chart'] } })
    expect(checkValues(chartSchema('kubernetes'), { clusterName: 'prod', playbooks: { enabled: false } })).toEqual({ ok: true, values: { clusterName: 'prod', playbooks: { enabled: false } } })
  })

  it('keeps only what differs from the chart defaults, and required values', () => {
    const schema = chartSchema('kubernetes')
    expect(valueOverrides(schema, { clusterName: 'kubernetes', prometheusURL: '', scraper: { schedule: '@every 15m' }, playbooks: { enabled: false } })).toEqual({
      clusterName: 'kubernetes',
      playbooks: { enabled: false },
    })
  })

  it('reads only the Generate intent of a known chart', () => {
    expect(readGenerateRequest(form([['intent', 'generate'], ['chart', 'flux']])).success).toBe(true)
    expect(readGenerateRequest(form([['intent', 'generate'], ['chart', 'helm']])).success).toBe(false)
    expect(readGenerateRequest(form([['intent', 'delete'], ['chart', 'flux']])).success).toBe(false)
  })
})

describe('generated Flux manifests and Helm commands', () => {
  it('generates the namespace, HelmRepository and HelmRelease of the chart with the values', () => {
    const answer = generateGitops(
      'kubernetes',
      form([
        ['namespace', 'ops'],
        ['values.clusterName', 'prod'],
        ['values.prometheusURL', ''],
        ['values.scraper.name', 'kubernetes'],
        ['values.scraper.schedule', '@every 1h'],
        ['values.playbooks.enabled', 'false'],
      ]),
    )
    if (!answer.ok) throw new Error(JSON.stringify(answer.errors))
    const documents = parseAllDocuments(answer.manifests).map((document) => document.toJS() as Record<string, unknown>)
    expect(documents).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ops' } },
      { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmRepository', metadata: { name: 'flanksource', namespace: 'ops' }, spec: { interval: '1h', url: 'https://flanksource.github.io/charts' } },
      {
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: 'mission-control-kubernetes', namespace: 'ops' },
        spec: {
          interval: '10m',
          chart: { spec: { chart: 'mission-control-kubernetes', sourceRef: { kind: 'HelmRepository', name: 'flanksource', namespace: 'ops' } } },
          values: { clusterName: 'prod', scraper: { schedule: '@every 1h' }, playbooks: { enabled: false } },
        },
      },
    ])
    expect(answer.commands).toBe(
      [
        'helm repo add flanksource https://flanksource.github.io/charts',
        'helm repo update',
        "helm install mission-control-kubernetes flanksource/mission-control-kubernetes \\\n  -n ops \\\n  --create-namespace \\\n  --set clusterName=prod \\\n  --set 'scraper.schedule=@every 1h' \\\n  --set playbooks.enabled=false",
      ].join('\n'),
    )
  })

  it('omits values when everything is the chart default', () => {
    const answer = generateGitops('flux', form([['namespace', 'mission-control'], ['values.topologyName', 'flux'], ['values.nameOverride', '']]))
    if (!answer.ok) throw new Error(JSON.stringify(answer.errors))
    expect(answer.manifests).toContain('chart: mission-control-flux')
    expect(answer.values).toEqual({ topologyName: 'flux' })
    expect(answer.commands.split('\n').at(-1)).toBe('  --set topologyName=flux')
  })

  it('refuses a bad namespace and bad values together', () => {
    expect(generateGitops('prometheus', form([['namespace', 'Ops_Team'], ['values.prometheusURL', 'prometheus:9090']]))).toEqual({
      ok: false,
      errors: {
        namespace: ['Must be lower case letters, digits and dashes, starting and ending with a letter or digit'],
        prometheusURL: ['Must match ^https?://.+$'],
      },
    })
    expect(generateGitops('flux', form([['values.topologyName', 'flux']]))).toMatchObject({ ok: false, errors: { namespace: ['Required'] } })
  })

  it('escapes Helm --set separators and keeps number-like strings strings', () => {
    expect(setFlags({ labels: 'a,b', version: '1.20', enabled: true, replicas: 2, region: ['eu-west-1', 'us-east-1'], 'app.kubernetes.io/name': 'x' })).toEqual([
      '--set',
      'labels=a\\,b',
      '--set-string',
      'version=1.20',
      '--set',
      'enabled=true',
      '--set',
      'replicas=2',
      '--set',
      'region={eu-west-1,us-east-1}',
      '--set',
      'app\\.kubernetes\\.io/name=x',
    ])
    expect(shellQuote('plain-word_1.2')).toBe('plain-word_1.2')
    expect(shellQuote("it's here")).toBe(`'it'"'"'s here'`)
    expect(helmCommands({ chart: 'mission-control', namespace: 'mc', values: { global: { ui: { host: 'a b' } } } })).toContain("--set 'global.ui.host=a b'")
    // Braces and commas would be expanded by the shell: a list is quoted whole.
    expect(helmCommands({ chart: 'mission-control-aws', namespace: 'mc', values: { region: ['eu-west-1', 'us-east-1'] } })).toContain("--set 'region={eu-west-1,us-east-1}'")
  })

  it('has a namespace pattern that browsers accept (the pattern attribute compiles with the v flag)', () => {
    expect(() => new RegExp(NAMESPACE_PATTERN, 'v')).not.toThrow()
    for (const id of GITOPS_CHART_IDS) {
      const patterns: string[] = []
      const walk = (fields: ReturnType<typeof valueFields>) => {
        for (const field of fields) {
          if (field.kind === 'object') walk(field.fields)
          else if ('pattern' in field && field.pattern) patterns.push(field.pattern)
        }
      }
      walk(valueFields(chartSchema(id)))
      for (const pattern of patterns) expect(() => new RegExp(pattern, 'v'), `${id}: ${pattern}`).not.toThrow()
    }
  })
})

describe('list URL state', () => {
  it('falls back to defaults for bad values and opens the modal step asked for', () => {
    expect(parseIntegrationSearch(new URLSearchParams('type=nope&status=BAD&sortBy=x&page=-1&pageSize=7&add=zzz'))).toEqual({
      search: '',
      type: null,
      status: null,
      sortBy: 'name',
      sortDesc: false,
      page: 1,
      pageSize: 50,
      add: 'choose',
    })
    expect(parseIntegrationSearch(new URLSearchParams('type=topologies&status=FAILED&sortBy=created_at&add=kubernetes'))).toMatchObject({
      type: 'topologies',
      status: 'FAILED',
      sortBy: 'created_at',
      sortDesc: true,
      add: 'kubernetes',
    })
    expect(parseIntegrationSearch(new URLSearchParams('')).add).toBeNull()
  })
})

import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { parseResourceYaml, getEditorKind } from '#app/lib/resource-editor.ts'
import { parseCanaryText } from '#contract/canary/canary-document.ts'
import { parseIncidentRuleSpec } from '#server/backend/incidents/incident-rules.ts'
import { bearer, createTestApp } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * Issue 10, item 9: YAML a person sends could make the server expand aliases into gigabytes
 * ("billion laughs"), build a cyclic value, or overflow its stack, and the canary API answered
 * 500. Every place that reads user YAML now goes through one parser that refuses these with 400.
 */

/** Nine levels of nine aliases: about 387 million strings once expanded. */
function billionLaughs(): string {
  const names = 'abcdefghi'
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let level = 1; level < names.length; level += 1) {
    lines.push(`${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(',')}]`)
  }
  return lines.join('\n')
}

/** A canary whose one check carries a large anchor that is then aliased many times. */
function canaryWithWideAliases(): string {
  const blob = 'x'.repeat(100_000)
  return [
    'apiVersion: canaries.flanksource.com/v1',
    'kind: Canary',
    'metadata: {name: wide}',
    'spec:',
    '  schedule: "@every 1m"',
    `  http: [{name: h, url: "http://example.invalid", description: &blob "${blob}"}]`,
    `  labels: [${Array(45).fill('*blob').join(', ')}]`,
  ].join('\n')
}

const cyclic = 'apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata: {name: loop}\nspec: &s {schedule: "@every 1m", again: *s}'
const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`

const testApp = useTestApp()
describe('YAML alias bombs and other hostile YAML', () => {
  it('the canary API answers 400 with a clear message, quickly', async () => {
    const { app } = createTestApp(testApp.db)
    for (const [body, pattern] of [
      [billionLaughs(), /alias/i],
      [canaryWithWideAliases(), /alias/i],
      [cyclic, /alias/i],
      [deep, /nested/i],
    ] as const) {
      const started = Date.now()
      const response = await request(app).post('/api/canary/api/canaries').set(bearer).set('content-type', 'application/yaml').send(body)
      expect(response.status).toBe(400)
      expect(JSON.stringify(response.body)).toMatch(pattern)
      expect(Date.now() - started).toBeLessThan(5_000)
    }
    const { rows } = await testApp.db.query("SELECT 1 FROM canaries WHERE name IN ('wide', 'loop')")
    expect(rows).toHaveLength(0)
  })

  it('a legitimate anchor used a few times still works', async () => {
    const { app } = createTestApp(testApp.db)
    const yaml = [
      'apiVersion: canaries.flanksource.com/v1',
      'kind: Canary',
      'metadata: {name: anchored}',
      'spec:',
      '  schedule: "@every 1m"',
      '  http:',
      '    - {name: one, url: "http://example.invalid/1", labels: &common {team: web, tier: front}}',
      '    - {name: two, url: "http://example.invalid/2", labels: *common}',
      '    - {name: three, url: "http://example.invalid/3", labels: *common}',
    ].join('\n')
    const response = await request(app).post('/api/canary/api/canaries').set(bearer).set('content-type', 'application/yaml').send(yaml)
    expect(response.status).toBe(201)
  })

  it('the CLI parser, the incident rule parser and the resource editor refuse them as input errors', () => {
    expect(() => parseCanaryText(billionLaughs())).toThrow(/alias/i)
    expect(() => parseCanaryText(cyclic)).toThrow(/alias/i)
    expect(() => parseIncidentRuleSpec(billionLaughs())).toThrow(/alias/i)
    expect(() => parseIncidentRuleSpec(cyclic)).toThrow(/alias/i)
    const kind = getEditorKind('incident_rules')!
    for (const text of [billionLaughs(), cyclic, deep]) {
      const parsed = parseResourceYaml(kind, text)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.error.message).toMatch(/^Invalid YAML/)
    }
  })
})

import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { buildFeatureRows, parseFeatureFlagsSearch, type PropertyRow } from '#app/lib/feature-flag-form-shapes.ts'
import { FeatureFlagsActionSchema } from '#app/lib/feature-flag-forms.ts'

function form(entries: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(entries)) data.append(name, value)
  return data
}

const parse = (entries: Record<string, string>) => parseWithZod(form(entries), { schema: FeatureFlagsActionSchema })

function errorsOf(entries: Record<string, string>): Record<string, string[] | null> {
  const result = parse(entries)
  return result.status === 'error' ? (result.error ?? {}) : {}
}

function db(name: string, value: string): PropertyRow {
  return { name, value, source: 'db', description: '' }
}

describe('feature flag forms', () => {
  it('accepts a property and trims it', () => {
    const result = parse({ intent: 'create', name: ' incidents.disable ', value: ' true ' })
    expect(result.status).toBe('success')
    expect(result.status === 'success' && result.value).toEqual({ intent: 'create', name: 'incidents.disable', value: 'true' })
  })

  it('refuses a blank name or value and names with spaces', () => {
    const blank = errorsOf({ intent: 'create', name: '   ', value: '' })
    expect(blank.name).toEqual(['Name is required'])
    expect(blank.value).toEqual(['Value is required'])
    expect(errorsOf({ intent: 'update', name: 'has space', value: 'x' }).name?.[0]).toMatch(/without spaces/)
  })

  it('parses the toggle intent to a boolean and refuses unknown features', () => {
    const toggle = parse({ intent: 'toggle', feature: 'settings.health', disabled: 'true' })
    expect(toggle.status === 'success' && toggle.value).toEqual({ intent: 'toggle', feature: 'settings.health', disabled: true })
    expect(errorsOf({ intent: 'toggle', feature: 'no-such-feature', disabled: 'true' }).feature).toEqual(['Unknown feature'])
    expect(parse({ intent: 'toggle', feature: 'health', disabled: 'maybe' }).status).toBe('error')
  })

  it('refuses an unknown intent', () => {
    expect(parse({ intent: 'drop-table', name: 'x' }).status).toBe('error')
  })
})

describe('feature flags URL state', () => {
  it('reads the dialog and the name, and drops bad values', () => {
    expect(parseFeatureFlagsSearch(new URLSearchParams('dialog=edit&name=incidents.disable'))).toEqual({ dialog: 'edit', name: 'incidents.disable' })
    expect(parseFeatureFlagsSearch(new URLSearchParams('dialog=explode&name='))).toEqual({ dialog: undefined, name: undefined })
    expect(parseFeatureFlagsSearch(new URLSearchParams(`name=${'x'.repeat(500)}`)).name).toBeUndefined()
  })
})

describe('buildFeatureRows', () => {
  it('lists each parent followed by its children', () => {
    const order = buildFeatureRows([]).map((row) => row.feature)
    const health = order.indexOf('health')
    expect(order.slice(health, health + 3)).toEqual(['health', 'settings.health', 'settings.job_history'])
    expect(order.indexOf('settings.config_scraper')).toBe(order.indexOf('config') + 1)
    expect(new Set(order).size).toBe(order.length)
  })

  it('shows a child of a disabled parent as disabled by that parent', () => {
    const rows = buildFeatureRows([db('health.disable', 'true')])
    const byFeature = new Map(rows.map((row) => [row.feature, row]))
    expect(byFeature.get('health')).toMatchObject({ state: 'disabled', isOwnFlagSet: true, disabledBy: null, depth: 0 })
    expect(byFeature.get('settings.job_history')).toMatchObject({ state: 'inherited', isOwnFlagSet: false, disabledBy: 'health', depth: 1, parent: 'health' })
    expect(byFeature.get('incidents')?.state).toBe('enabled')
  })

  it('keeps a child its own flag when the parent is on, and notes both when both are set', () => {
    const own = new Map(buildFeatureRows([db('settings.topology.disable', 'true')]).map((row) => [row.feature, row]))
    expect(own.get('settings.topology')).toMatchObject({ state: 'disabled', disabledBy: null })
    expect(own.get('topology')?.state).toBe('enabled')
    const both = new Map(buildFeatureRows([db('topology.disable', 'TRUE'), db('settings.topology.disable', 'true')]).map((row) => [row.feature, row]))
    expect(both.get('settings.topology')).toMatchObject({ state: 'disabled', disabledBy: 'topology' })
  })

  it('treats any value but true as on, and locks flags the server process sets', () => {
    const rows = new Map(
      buildFeatureRows([db('logs.disable', 'false'), { name: 'views.disable', value: 'true', source: 'local', description: '' }]).map((row) => [row.feature, row]),
    )
    expect(rows.get('logs')).toMatchObject({ state: 'enabled', isLocked: false })
    expect(rows.get('views')).toMatchObject({ state: 'disabled', isLocked: true })
  })
})

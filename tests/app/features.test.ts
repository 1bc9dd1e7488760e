import { describe, expect, it } from 'vitest'
import { FEATURE_PARENTS, FEATURES, getDisabledFeatures, getSwitchedOffNames, isFeatureDisabled } from '#app/lib/features.ts'

const prop = (name: string, value: unknown) => ({ name, value })

describe('getSwitchedOffNames', () => {
  it('reads only names ending in .disable whose value is true', () => {
    const names = getSwitchedOffNames([
      prop('incidents.disable', 'true'),
      prop('logs.disable', 'false'),
      prop('playbooks.disable', 'yes'),
      prop('health.disabled', 'true'),
      prop('topology', 'true'),
      prop('proxy.disable', 'true'),
    ])
    expect([...names].sort()).toEqual(['incidents', 'proxy'])
  })

  it('accepts a real boolean and ignores case and surrounding spaces', () => {
    const names = getSwitchedOffNames([prop('logs.disable', true), prop('config.disable', ' TRUE ')])
    expect([...names].sort()).toEqual(['config', 'logs'])
  })

  it('ignores malformed rows instead of throwing', () => {
    const rows = [prop('.disable', 'true'), { name: 42, value: 'true' }, null, prop('views.disable', null)] as never[]
    expect([...getSwitchedOffNames(rows)]).toEqual([])
  })

  it('lets a later row switch an earlier one back on', () => {
    expect(getSwitchedOffNames([prop('logs.disable', 'true'), prop('logs.disable', 'false')]).has('logs')).toBe(false)
  })
})

describe('isFeatureDisabled', () => {
  it('is false when nothing is switched off', () => {
    for (const feature of FEATURES) expect(isFeatureDisabled(feature, new Set())).toBe(false)
  })

  it('disables only the feature itself when it has no parent', () => {
    const off = new Set(['incidents'])
    expect(isFeatureDisabled('incidents', off)).toBe(true)
    expect(isFeatureDisabled('health', off)).toBe(false)
    expect(isFeatureDisabled('settings.rules', off)).toBe(false)
  })

  it.each([
    ['settings.config_scraper', 'config'],
    ['settings.topology', 'topology'],
    ['settings.health', 'health'],
    ['settings.job_history', 'health'],
  ] as const)('%s inherits from %s', (child, parent) => {
    expect(FEATURE_PARENTS[child]).toBe(parent)
    expect(isFeatureDisabled(child, new Set([parent]))).toBe(true)
  })

  it('never disables a parent because of its child', () => {
    expect(isFeatureDisabled('health', new Set(['settings.health', 'settings.job_history']))).toBe(false)
  })
})

describe('getDisabledFeatures', () => {
  it('lists a disabled parent together with the settings that inherit from it', () => {
    expect(getDisabledFeatures([prop('health.disable', 'true')])).toEqual(['health', 'settings.health', 'settings.job_history'])
  })

  it('lists a child disabled on its own without its parent', () => {
    expect(getDisabledFeatures([prop('settings.config_scraper.disable', 'true')])).toEqual(['settings.config_scraper'])
  })

  it('leaves unknown feature names out', () => {
    expect(getDisabledFeatures([prop('proxy.disable', 'true')])).toEqual([])
  })
})

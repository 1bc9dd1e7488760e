import { describe, expect, it } from 'vitest'
import { buildSidebar, getSettingsTable, MAIN_NAV } from '#app/lib/navigation.ts'

const admin = { roles: ['admin'], permissions: [] }
const none = new Set<string>()

describe('buildSidebar', () => {
  it('lists the main entries in the spec order', () => {
    const { main } = buildSidebar({ session: admin, switchedOff: none, views: [] })
    expect(main.map((entry) => entry.label)).toEqual(['Dashboard', 'Health', 'Incidents', 'Catalog', 'Logs', 'Playbooks', 'Applications'])
    expect(main[0]?.href).toBe('/topology')
  })

  it('sorts the settings group by label', () => {
    const { settings } = buildSidebar({ session: admin, switchedOff: none, views: [] })
    const labels = settings.map((entry) => entry.label)
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b)))
    expect(labels).toContain('Jobs History')
    expect(settings.find((entry) => entry.label === 'Canaries')?.href).toBe('/settings/canaries')
  })

  it('hides entries of disabled features, including inherited ones', () => {
    const { main, settings } = buildSidebar({ session: admin, switchedOff: new Set(['health', 'incidents']), views: [] })
    expect(main.map((entry) => entry.name)).not.toContain('health')
    expect(main.map((entry) => entry.name)).not.toContain('incidents')
    expect(settings.map((entry) => entry.name)).not.toContain('canaries')
    expect(settings.map((entry) => entry.name)).not.toContain('jobs')
    expect(settings.map((entry) => entry.name)).toContain('topologies')
  })

  it('hides the settings group from viewers and unreadable settings from responders', () => {
    expect(buildSidebar({ session: { roles: ['viewer'], permissions: [] }, switchedOff: none, views: [] }).settings).toEqual([])
    const responder = buildSidebar({ session: { roles: ['responder'], permissions: [] }, switchedOff: none, views: [] })
    expect(responder.settings.map((entry) => entry.name)).not.toContain('connections')
    expect(responder.settings.map((entry) => entry.name)).not.toContain('users')
    expect(responder.settings.map((entry) => entry.name)).toContain('teams')
  })

  it('adds sidebar views in the given order, titled, linking by id', () => {
    const { views } = buildSidebar({
      session: admin,
      switchedOff: none,
      views: [
        { id: 'b', name: 'pods', title: 'Pods' },
        { id: 'a', name: 'nodes', title: '  ' },
        { id: '', name: 'broken' },
      ],
    })
    expect(views.map((entry) => [entry.label, entry.href, entry.name])).toEqual([
      ['Pods', '/views/b', 'view-b'],
      ['nodes', '/views/a', 'view-a'],
    ])
  })

  it('drops custom views when the views feature is off', () => {
    const { views } = buildSidebar({ session: admin, switchedOff: new Set(['views']), views: [{ id: 'a', name: 'x' }] })
    expect(views).toEqual([])
  })

  it('keeps entry names unique so test ids are unambiguous', () => {
    const sidebar = buildSidebar({ session: admin, switchedOff: none, views: [] })
    const names = [...sidebar.main, ...sidebar.settings].map((entry) => entry.name)
    expect(new Set(names).size).toBe(names.length)
    expect(MAIN_NAV.length).toBe(7)
  })
})

describe('getSettingsTable', () => {
  it('knows the generic tables and nothing else', () => {
    expect(getSettingsTable('canaries')?.label).toBe('Canaries')
    expect(getSettingsTable('config_scrapers')).toBeNull()
    expect(getSettingsTable('__proto__')).toBeNull()
    expect(getSettingsTable('toString')).toBeNull()
    expect(getSettingsTable(undefined)).toBeNull()
  })
})

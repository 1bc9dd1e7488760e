import { describe, expect, it } from 'vitest'
import { cardProperties, componentIcon, formatBytes, formatValue, healthOf, propertyValue, topologyHref } from '#app/components/topology/topology-model.ts'
import { parseTopologyParams } from '#app/lib/topology-search.ts'
import { toCard } from '#app/lib/topology.server.ts'
import type { TopologyComponentNode } from '#contract/topology/topology-tree.ts'

describe('topology cards', () => {
  it('formats values with their units', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(268435456)).toBe('256 MB')
    expect(formatBytes(1024 ** 8 * 3)).toBe('3.0 YB')
    expect(formatValue(250, 'millicores')).toBe('250m')
    expect(formatValue(1500, 'millicores')).toBe('1.5 cores')
    expect(formatValue(42.125, '%')).toBe('42.13%')
    expect(formatValue(1200, 'req/s')).toBe('1,200 req/s')
    expect(formatValue(7, undefined)).toBe('7')
  })

  it('shows a property as its text, else value and max with the unit', () => {
    expect(propertyValue({ text: 'v1.2' , value: 3 })).toBe('v1.2')
    expect(propertyValue({ value: 100, unit: 'millicores', max: 1000 })).toBe('100m / 1 cores')
    expect(propertyValue({ value: '12', unit: 'pods' })).toBe('12 pods')
    expect(propertyValue({ name: 'empty' })).toBe('')
  })

  it('puts headline properties first, leaves hidden and empty ones out and keeps the limit', () => {
    const properties = [
      { name: 'url', text: 'https://x' },
      { name: 'secret', text: 's', hidden: true },
      { name: 'memory', value: 1024, unit: 'bytes', headline: true },
      { name: 'blank' },
      { name: 'version', label: 'Version', text: '1.0', headline: true, order: -1 },
      'not a property',
    ]
    expect(cardProperties(properties, 2)).toEqual([
      { name: 'version', label: 'Version', value: '1.0', headline: true },
      { name: 'memory', label: 'memory', value: '1.0 KB', headline: true },
    ])
    expect(cardProperties(null, 5)).toEqual([])
  })

  it('takes health from health, then status, and maps error to unhealthy', () => {
    expect(healthOf('warning', 'healthy')).toBe('warning')
    expect(healthOf(null, 'error')).toBe('unhealthy')
    expect(healthOf(undefined, 'info')).toBe('unknown')
  })

  it('picks a sprite icon from the component icon, else the type', () => {
    expect(componentIcon('kubernetes', 'Platform')).toBe('LayoutGrid')
    expect(componentIcon('postgres', null)).toBe('Table2')
    expect(componentIcon(null, 'Kubernetes::Pod')).toBe('Boxes')
  })

  it('counts children from the child list, else from the rolled-up summary', () => {
    const base: TopologyComponentNode = { id: 'a', name: 'A', type: 'Node', status: 'healthy', external_id: 'a', created_at: '2026-01-01T00:00:00Z' }
    const withChildren = toCard({
      ...base,
      components: [
        { ...base, id: 'b', health: 'unhealthy' },
        { ...base, id: 'c', status: 'healthy' },
      ],
      checks: { healthy: 2, unhealthy: 0 },
      analysis: { security: { high: 2, low: 1 } },
      incidents: { availability: { critical: 1 } },
      labels: { 'topology.kubernetes.io/zone': 'eu-1a' },
      properties: [{ name: 'os', text: 'linux' }],
    })
    expect(withChildren.children).toEqual({ total: 2, healthy: 1, unhealthy: 1, warning: 0, unknown: 0 })
    expect(withChildren.checks).toEqual([['healthy', 2]])
    expect(withChildren.insights).toBe(3)
    expect(withChildren.incidents).toBe(1)
    // A node shows the spec's node info labels it has, from properties or labels.
    expect(withChildren.nodeInfo.map((info) => info.label)).toEqual(['created', 'zone', 'os'])
    expect(toCard({ ...base, type: 'Service', summary: { healthy: 3, warning: 1, checks: { healthy: 2 } } }).children).toEqual({ total: 4, healthy: 3, unhealthy: 0, warning: 1, unknown: 0 })
  })
})

describe('topology URL', () => {
  it('falls back to defaults for bad values instead of failing', () => {
    const params = parseTopologyParams(new URLSearchParams('page=-3&pageSize=7&sortBy=__proto__&sortOrder=up&labels=novalue&status=All&showHiddenComponents=maybe'))
    expect(params).toMatchObject({ page: 1, pageSize: 50, sortBy: 'name', sortOrder: 'asc', label: null, status: null, showHidden: true })
    expect(parseTopologyParams(new URLSearchParams('showHiddenComponents=no')).showHidden).toBe(false)
    expect(parseTopologyParams(new URLSearchParams('')).showHidden).toBeNull()
    expect(parseTopologyParams(new URLSearchParams('labels=team%3Dweb&type=Service&page=2&pageSize=100')).label).toBe('team=web')
  })

  it('sets and removes parameters', () => {
    expect(topologyHref('?type=A&page=3', { page: null, showHiddenComponents: 'no' })).toBe('?type=A&showHiddenComponents=no')
  })
})

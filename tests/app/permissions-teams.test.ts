import { describe, expect, it } from 'vitest'
import { kubeconfigFileName } from '#app/components/access/kubeconfig-dialog.tsx'
import { memberRemovedMessage, membersAddedMessage, readTeamForm } from '#app/components/access/team-form.ts'

describe('team form', () => {
  it('requires a name on create and parses the spec as a JSON object', () => {
    expect(readTeamForm(new URLSearchParams({ name: '  ' }), { requireName: true }).errors).toEqual({ name: 'This field is required' })
    const { row, values } = readTeamForm(new URLSearchParams({ name: ' SRE ', icon: '', spec: '{"components":[]}' }), { requireName: true })
    expect(values.name).toBe('SRE')
    expect(row).toEqual({ icon: 'group', spec: { components: [] } })
    expect(readTeamForm(new URLSearchParams({ spec: '' }), { requireName: false }).row).toEqual({ icon: 'group', spec: {} })
  })

  it('refuses a spec that is not a JSON object', () => {
    expect(readTeamForm(new URLSearchParams({ name: 'a', spec: '{' }), { requireName: true }).errors.spec).toBe('The spec is not valid JSON')
    expect(readTeamForm(new URLSearchParams({ name: 'a', spec: '[1]' }), { requireName: true }).errors.spec).toBe('The spec must be a JSON object')
    expect(readTeamForm(new URLSearchParams({ name: 'a', spec: '[1]' }), { requireName: true }).row).toBeUndefined()
  })

  it('words the member toasts as the spec does', () => {
    expect(membersAddedMessage(['Ada', 'Grace'])).toBe('Ada, Grace added to the team successfully')
    expect(memberRemovedMessage('Ada')).toBe('Ada removed from team successfully')
  })
})

describe('kubeconfig file name', () => {
  it('is named after the host, as the API names the attachment', () => {
    expect(kubeconfigFileName('localhost')).toBe('localhost-kubeconfig.yaml')
    expect(kubeconfigFileName('demo.flanksource.com')).toBe('demo-kubeconfig.yaml')
    expect(kubeconfigFileName('')).toBe('lookout-kubeconfig.yaml')
  })
})

import { describe, expect, it } from 'vitest'
import { kubeconfigFileName } from '#app/components/access/kubeconfig-dialog.tsx'
import { memberRemovedMessage, membersAddedMessage } from '#app/components/access/team-form.ts'

describe('team form', () => {
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

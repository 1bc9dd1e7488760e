import { describe, expect, it } from 'vitest'
import { invitableRoles } from '#app/lib/invitable-roles.ts'

describe('roles the invite form offers', () => {
  it('offers every role to an admin', () => {
    expect(invitableRoles({ roles: ['admin'], permissions: [] })).toEqual(['admin', 'editor', 'guest', 'viewer', 'responder', 'commander'])
  })

  it('offers an editor only roles within what editors hold', () => {
    expect(invitableRoles({ roles: ['editor'], permissions: [] })).toEqual(['editor', 'guest', 'viewer', 'responder', 'commander'])
  })

  it('drops a role once a deny takes away part of it', () => {
    const denied = invitableRoles({ roles: ['editor'], permissions: [{ object: 'comments', action: 'create', deny: true }] })
    expect(denied).toEqual(['guest', 'viewer'])
  })

  it('offers a viewer only the read-only roles', () => {
    expect(invitableRoles({ roles: ['viewer'], permissions: [] })).toEqual(['guest', 'viewer'])
  })
})

import { describe, expect, it } from 'vitest'
import { hasAccess, isAdmin, isViewerOnly, RESOURCES } from '#app/lib/access.ts'

const session = (roles: string[], permissions: Parameters<typeof hasAccess>[0]['permissions'] = []) => ({ roles, permissions })

describe('hasAccess by role', () => {
  it('gives admin read and write everywhere', () => {
    for (const resource of RESOURCES) {
      expect(hasAccess(session(['admin']), resource, 'read')).toBe(true)
      expect(hasAccess(session(['admin']), resource, 'write')).toBe(true)
    }
  })

  it('lets an editor read everything but not write connections, identities or rbac', () => {
    expect(hasAccess(session(['editor']), 'connections', 'read')).toBe(true)
    expect(hasAccess(session(['editor']), 'connections', 'write')).toBe(false)
    expect(hasAccess(session(['editor']), 'identities', 'write')).toBe(false)
    expect(hasAccess(session(['editor']), 'rbac', 'write')).toBe(false)
    expect(hasAccess(session(['editor']), 'playbooks', 'write')).toBe(true)
  })

  it('lets responders and commanders write only the incident areas', () => {
    for (const role of ['responder', 'commander']) {
      expect(hasAccess(session([role]), 'incident', 'write')).toBe(true)
      expect(hasAccess(session([role]), 'comments', 'write')).toBe(true)
      expect(hasAccess(session([role]), 'canaries', 'write')).toBe(false)
      expect(hasAccess(session([role]), 'rbac', 'read')).toBe(false)
      expect(hasAccess(session([role]), 'canaries', 'read')).toBe(true)
    }
  })

  it('gives viewers and guests the commander read set and no writes', () => {
    for (const role of ['viewer', 'guest']) {
      expect(hasAccess(session([role]), 'canaries', 'read')).toBe(true)
      expect(hasAccess(session([role]), 'connections', 'read')).toBe(false)
      expect(hasAccess(session([role]), 'identities', 'read')).toBe(false)
      expect(hasAccess(session([role]), 'incident', 'write')).toBe(false)
    }
  })

  it('takes the union over roles and ignores unknown roles', () => {
    expect(hasAccess(session(['viewer', 'responder']), 'incident', 'write')).toBe(true)
    expect(hasAccess(session(['everyone']), 'canaries', 'read')).toBe(false)
    expect(hasAccess(session([]), 'canaries', 'read')).toBe(false)
  })
})

describe('hasAccess with permission rows', () => {
  it('grants from unconditional rows, by action', () => {
    expect(hasAccess(session([], [{ object: 'connections', action: 'read' }]), 'connections', 'read')).toBe(true)
    expect(hasAccess(session([], [{ object: 'connections', action: 'read' }]), 'connections', 'write')).toBe(false)
    expect(hasAccess(session([], [{ object: 'playbooks', action: 'update' }]), 'playbooks', 'write')).toBe(true)
    expect(hasAccess(session([], [{ object: '*', action: '*' }]), 'rbac', 'write')).toBe(true)
    expect(hasAccess(session([], [{ object: 'views', action: 'create,read,update,delete' }]), 'views', 'read')).toBe(true)
  })

  it('ignores selector rules, which only the API can evaluate', () => {
    expect(hasAccess(session([], [{ object: 'playbooks', action: '*', condition: 'x' }]), 'playbooks', 'read')).toBe(false)
  })

  it('lets a deny row take away what a role grants', () => {
    expect(hasAccess(session(['admin'], [{ object: 'connections', action: '*', deny: true }]), 'connections', 'read')).toBe(false)
    expect(hasAccess(session(['admin'], [{ object: 'connections', action: 'update', deny: true }]), 'connections', 'read')).toBe(true)
  })
})

describe('role flags', () => {
  it('treats a user holding only viewer or guest (or nothing) as a viewer', () => {
    expect(isViewerOnly({ roles: ['viewer'] })).toBe(true)
    expect(isViewerOnly({ roles: ['guest', 'everyone'] })).toBe(true)
    expect(isViewerOnly({ roles: [] })).toBe(true)
  })

  it('does not treat an editor whose inherited roles include viewer as a viewer', () => {
    expect(isViewerOnly({ roles: ['editor', 'viewer', 'everyone'] })).toBe(false)
    expect(isAdmin({ roles: ['editor', 'viewer'] })).toBe(false)
    expect(isAdmin({ roles: ['admin'] })).toBe(true)
  })
})

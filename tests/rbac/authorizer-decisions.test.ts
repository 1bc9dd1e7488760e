import { Enforcer } from 'casbin'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createAuthorizer } from '#server/backend/rbac/authorizer.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { personWith } from './rbac-fixture.ts'

/**
 * The authorizer keeps the decisions it took for a subject without conditional permissions
 * (one casbin evaluation per distinct question while the subject's policy is loaded), and
 * evaluates every request of a subject that has one, since a condition may depend on the time
 * or the resource.
 */
describe('authorizer decisions', () => {
  const testApp = useTestApp()
  afterEach(() => vi.restoreAllMocks())

  it('evaluates a repeated question once, a new one again, and forgets them with the policy', async () => {
    const db = testApp.db
    const authorizer = createAuthorizer(db)
    const viewer = await personWith(db, ['viewer'])
    const subject = { personId: viewer.id }
    const evaluations = vi.spyOn(Enforcer.prototype, 'enforceExSync')

    const first = await authorizer.authorize(subject, { object: 'canaries', action: 'read' })
    const again = await authorizer.authorize(subject, { object: 'canaries', action: 'read' })
    expect(first.allowed).toBe(true)
    expect(again).toEqual(first)
    expect(evaluations).toHaveBeenCalledTimes(1)

    expect((await authorizer.authorize(subject, { object: 'canaries', action: 'delete' })).allowed).toBe(false)
    expect(evaluations).toHaveBeenCalledTimes(2)

    // A deny stored elsewhere, then the invalidation a write brings: the kept decision goes with the policy.
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, deny) VALUES ('person', $1, 'canaries', 'read', true)`, [viewer.id])
    authorizer.invalidate()
    const denied = await authorizer.authorize(subject, { object: 'canaries', action: 'read' })
    expect(denied.allowed).toBe(false)
    expect(denied.reason).toMatch(/denied by permission/)
    expect(evaluations).toHaveBeenCalledTimes(3)
  })

  it('evaluates every request of a subject with a conditional permission', async () => {
    const db = testApp.db
    const authorizer = createAuthorizer(db)
    const person = await personWith(db, [])
    await db.query(`INSERT INTO permissions (subject_type, subject, object, action, until) VALUES ('person', $1, 'topology', 'read', $2)`, [
      person.id,
      new Date(Date.now() + 1000).toISOString(),
    ])
    const subject = { personId: person.id }
    const evaluations = vi.spyOn(Enforcer.prototype, 'enforceExSync')

    expect((await authorizer.authorize(subject, { object: 'topology', action: 'read' })).allowed).toBe(true)
    expect((await authorizer.authorize(subject, { object: 'topology', action: 'read' })).allowed).toBe(true)
    expect(evaluations).toHaveBeenCalledTimes(2)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    // The policy is still cached; the expiry is seen because nothing was kept.
    expect((await authorizer.authorize(subject, { object: 'topology', action: 'read' })).allowed).toBe(false)
  })
})

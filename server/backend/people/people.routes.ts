import express from 'express'
import type { Db } from '#server/db/client.ts'
import type { CredentialStore } from '#server/backend/identity/credentials.ts'
import { ROLES, isRole } from '#server/backend/rbac/access-map.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { isAdmin, missingForRole, missingOverSubject } from '#server/backend/rbac/dominance.ts'
import { isLastAdmin } from '#server/backend/rbac/admin-lockout.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import { isUuid } from '#contract/uuid.ts'
const EMAIL = /^[^\s@]+@[^\s@]+$/
const LAST_ADMIN = 'this is the last admin: make someone else admin first'

type UpdateInput = { id: string; firstName?: string; lastName?: string; email?: string; role?: string; active?: boolean }

class InputError extends Error {}

/** The platform accepts these keys in any letter case (http-api.md §2.1.7). */
function readUpdate(body: unknown): UpdateInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new InputError('body must be a JSON object')
  const lower = new Map(Object.entries(body as Record<string, unknown>).map(([key, value]) => [key.toLowerCase(), value]))
  const text = (key: string): string | undefined => {
    const value = lower.get(key)
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') throw new InputError(`${key} must be a string`)
    return value.trim()
  }
  const id = text('id')
  if (!id) throw new InputError('id is required')
  const active = lower.get('active')
  if (active !== undefined && active !== null && typeof active !== 'boolean') throw new InputError('active must be a boolean')
  const email = text('email')
  if (email !== undefined && email !== '' && !EMAIL.test(email)) throw new InputError(`invalid email ${email}`)
  const role = text('role')
  if (role !== undefined && role !== '' && !isRole(role)) throw new InputError(`unknown role ${role} (known: ${ROLES.join(', ')})`)
  return {
    id,
    firstName: text('firstname'),
    lastName: text('lastname'),
    email: email || undefined,
    role: role || undefined,
    ...(typeof active === 'boolean' ? { active } : {}),
  }
}

/**
 * Route access asks for people:update / people:delete (identities), which only admins hold by
 * the matrix but a stored permission can give anyone. Such a holder may change only people they
 * dominate (no taking over an admin by rewriting their email or role), and may give only roles
 * whose grants they hold. Returns the refusal, if any.
 */
async function refusal(authorizer: Authorizer, db: Db, principal: Principal, targetId: string, role?: string): Promise<string | undefined> {
  if (await isAdmin(authorizer, principal)) return undefined
  if (targetId !== principal.personId) {
    const above = await missingOverSubject(authorizer, db, principal, 'person', targetId)
    if (above) return `you cannot change person ${targetId}: they hold ${above.action} on ${above.object}, which you do not`
  }
  if (role) {
    const missing = await missingForRole(authorizer, principal, role)
    if (missing) return `you cannot give the role ${role}: it holds ${missing.action} on ${missing.object}, which you do not`
  }
  return undefined
}

function splitName(name: string): { first: string; last: string } {
  const space = name.indexOf(' ')
  return space === -1 ? { first: name, last: '' } : { first: name.slice(0, space), last: name.slice(space + 1) }
}

/**
 * `POST /people/update` and `DELETE /people/{id}` on the people table. The Kratos identity
 * (when that mode runs) is kept in step by the identity service's own people sync.
 */
export function createPeopleRouter(options: { db: Db; store: CredentialStore; authorizer: Authorizer }): express.Router {
  const { db, store, authorizer } = options
  const router = express.Router()

  router.post('/people/update', express.json({ limit: '16kb' }), async (req, res, next) => {
    try {
      let input: UpdateInput
      try {
        input = readUpdate(req.body)
      } catch (error) {
        if (error instanceof InputError) {
          res.status(400).json({ error: error.message })
          return
        }
        throw error
      }
      const found = isUuid(input.id)
        ? await db.query<{ id: string; name: string; email: string | null }>(
            'SELECT id, name, email FROM people WHERE id = $1 AND deleted_at IS NULL',
            [input.id],
          )
        : { rows: [] }
      const person = found.rows[0]
      if (!person) {
        res.status(404).json({ error: `person ${input.id} not found` })
        return
      }
      const refused = await refusal(authorizer, db, res.locals.principal as Principal, person.id, input.role)
      if (refused) {
        res.status(403).json({ error: refused })
        return
      }
      const losesAdmin = (input.role !== undefined && input.role !== 'admin') || input.active === false
      if (losesAdmin && (await isLastAdmin(db, person.id))) {
        res.status(409).json({ error: LAST_ADMIN })
        return
      }
      const current = splitName(person.name)
      const first = input.firstName ?? current.first
      const last = input.lastName ?? current.last
      const name = [first, last].filter(Boolean).join(' ') || person.name
      const email = input.email ?? person.email
      await db.transaction(async (tx) => {
        if (email && email !== person.email) {
          const taken = await tx.query('SELECT 1 FROM people WHERE email = $1 AND id <> $2 AND deleted_at IS NULL', [email, person.id])
          if (taken.rows.length > 0) throw Object.assign(new Error(`email ${email} is already used by another person`), { status: 409 })
        }
        await tx.query('UPDATE people SET name = $2, email = $3, updated_at = now() WHERE id = $1', [person.id, name, email])
        if (input.role) {
          // `role` replaces every role the person had.
          await tx.query(`DELETE FROM casbin_rule WHERE ptype = 'g' AND v0 = $1`, [person.id])
          await tx.query(`INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, $2, '', '', '', '')`, [
            person.id,
            input.role,
          ])
        }
        if (input.active === false) {
          await tx.query('INSERT INTO lookout.inactive_people (person_id) VALUES ($1) ON CONFLICT DO NOTHING', [person.id])
        } else if (input.active === true) {
          await tx.query('DELETE FROM lookout.inactive_people WHERE person_id = $1', [person.id])
        }
      })
      if (input.active === false) await store.deleteSessionsOf(person.id)
      authorizer.invalidate()
      res.json({ email: email ?? '', name: { first, last } })
    } catch (error) {
      next(error)
    }
  })

  router.delete('/people/:id', async (req, res, next) => {
    try {
      const id = req.params.id
      const found = isUuid(id)
        ? await db.query<{ id: string }>('SELECT id FROM people WHERE id = $1 AND deleted_at IS NULL', [id])
        : { rows: [] }
      if (!found.rows[0]) {
        res.status(404).json({ error: `person ${id} not found` })
        return
      }
      const refused = await refusal(authorizer, db, res.locals.principal as Principal, id)
      if (refused) {
        res.status(403).json({ error: refused })
        return
      }
      if (await isLastAdmin(db, id)) {
        res.status(409).json({ error: LAST_ADMIN })
        return
      }
      await db.transaction(async (tx) => {
        await tx.query('UPDATE people SET deleted_at = now() WHERE id = $1', [id])
        await tx.query(`DELETE FROM casbin_rule WHERE ptype = 'g' AND v0 = $1`, [id])
        // Tokens the person made act with the person's roles: they go with the person.
        await tx.query(
          `UPDATE people SET deleted_at = now()
            WHERE type = 'access_token' AND deleted_at IS NULL
              AND id IN (SELECT person_id FROM access_tokens WHERE created_by = $1)`,
          [id],
        )
        await tx.query('DELETE FROM access_tokens WHERE person_id = $1', [id])
      })
      await store.deleteSessionsOf(id)
      authorizer.invalidate()
      res.status(204).end()
    } catch (error) {
      next(error)
    }
  })

  return router
}

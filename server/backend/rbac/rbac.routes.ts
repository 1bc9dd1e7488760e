import express from 'express'
import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { ROLES, isRole } from './access-map.ts'
import type { Authorizer } from './authorizer.ts'
import { missingForRole } from './dominance.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import { isUuid } from '#contract/uuid.ts'

const UpdateRoleSchema = z.object({ roles: z.array(z.string()).min(1, 'roles must name at least one role') })

type PersonRow = { id: string; type: string | null }

async function findPerson(db: Db, id: string): Promise<PersonRow | undefined> {
  if (!isUuid(id)) return undefined
  const { rows } = await db.query<PersonRow>('SELECT id, type FROM people WHERE id = $1 AND deleted_at IS NULL', [id])
  return rows[0]
}

/** `/rbac/...` (http-api.md §2.1.9). Route access (rbac:read / rbac:update) is checked before these run. */
export function createRbacRouter(options: { db: Db; authorizer: Authorizer }): express.Router {
  const { db, authorizer } = options
  const router = express.Router()

  router.post('/rbac/:personId/update_role', express.json({ limit: '16kb' }), async (req, res, next) => {
    try {
      const parsed = UpdateRoleSchema.safeParse(req.body ?? {})
      if (!parsed.success) {
        res.status(400).json({ error: parsed.error.issues.map((issue) => issue.message).join('; '), message: 'Error updating roles' })
        return
      }
      const unknown = parsed.data.roles.filter((role) => !isRole(role))
      if (unknown.length > 0) {
        res.status(400).json({ error: `unknown roles ${unknown.join(', ')} (known: ${ROLES.join(', ')})`, message: 'Error updating roles' })
        return
      }
      const person = await findPerson(db, req.params.personId)
      if (!person) {
        res.status(404).json({ error: `person ${req.params.personId} not found`, message: 'Error updating roles' })
        return
      }
      // rbac:update can be held through a stored permission by a non-admin: a role it hands out
      // may carry only what its giver holds (issue 10 §4), or it would make anyone admin.
      const principal = res.locals.principal as Principal
      for (const role of new Set(parsed.data.roles)) {
        const missing = await missingForRole(authorizer, principal, role)
        if (missing) {
          res.status(403).json({ error: `you cannot give the role ${role}: it holds ${missing.action} on ${missing.object}, which you do not`, message: 'Error updating roles' })
          return
        }
      }
      for (const role of new Set(parsed.data.roles)) {
        await db.query(
          `INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, $2, '', '', '', '') ON CONFLICT DO NOTHING`,
          [person.id, role],
        )
      }
      authorizer.invalidate()
      res.json({ message: 'Role updated successfully' })
    } catch (error) {
      next(error)
    }
  })

  router.get('/rbac/:personId/roles', async (req, res, next) => {
    try {
      const person = await findPerson(db, req.params.personId)
      if (!person) {
        res.status(404).json({ error: `person ${req.params.personId} not found`, message: 'Error getting roles' })
        return
      }
      res.json({ message: '', payload: await authorizer.rolesOf({ personId: person.id }) })
    } catch (error) {
      next(error)
    }
  })

  router.get('/rbac/token/:tokenId/permissions', async (req, res, next) => {
    try {
      const tokenId = req.params.tokenId
      const { rows } = isUuid(tokenId)
        ? await db.query<{ person_id: string }>('SELECT person_id FROM access_tokens WHERE id = $1', [tokenId])
        : { rows: [] }
      const row = rows[0]
      if (!row) {
        res.status(404).json({ error: `token ${tokenId} not found`, message: 'Error getting permissions' })
        return
      }
      res.json({ message: '', payload: await authorizer.effectivePermissions({ personId: row.person_id }) })
    } catch (error) {
      next(error)
    }
  })

  // Every stored rule: casbin policy rows, then live permissions.
  router.get('/rbac/dump', async (_req, res, next) => {
    try {
      const rules = await db.query<{ id: string; v0: string; v1: string; v2: string; v3: string | null }>(
        `SELECT id::text, v0, v1, v2, v3 FROM casbin_rule WHERE ptype = 'p' ORDER BY id`,
      )
      const permissions = await db.query<{
        id: string
        subject: string | null
        object: string | null
        action: string
        deny: boolean
        has_condition: boolean
      }>(
        `SELECT id::text, subject, coalesce(object,
                  CASE WHEN config_id IS NOT NULL THEN 'catalog' WHEN component_id IS NOT NULL THEN 'topology'
                       WHEN canary_id IS NOT NULL THEN 'canaries' WHEN playbook_id IS NOT NULL THEN 'playbooks'
                       WHEN connection_id IS NOT NULL THEN 'connection' END) AS object,
                action, deny,
                (object_selector IS NOT NULL OR tags IS NOT NULL OR agents IS NOT NULL OR until IS NOT NULL
                 OR config_id IS NOT NULL OR component_id IS NOT NULL OR canary_id IS NOT NULL
                 OR playbook_id IS NOT NULL OR connection_id IS NOT NULL) AS has_condition
           FROM permissions WHERE deleted_at IS NULL ORDER BY created_at, id`,
      )
      res.json([
        ...rules.rows.map((row) => ({
          id: row.id,
          subject: row.v0,
          object: row.v1,
          action: row.v2,
          ...(row.v3 === 'deny' ? { deny: true } : {}),
        })),
        ...permissions.rows.map((row) => ({
          id: row.id,
          subject: row.subject ?? '',
          object: row.object ?? '',
          action: row.action,
          ...(row.deny ? { deny: true } : {}),
          ...(row.has_condition ? { condition: 'permission' } : {}),
        })),
      ])
    } catch (error) {
      next(error)
    }
  })

  return router
}

import type { Request } from 'express'
import { z } from 'zod'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import { locksAdminsOut } from './admin-lockout.ts'
import type { Authorizer } from './authorizer.ts'
import { isUuid } from '#contract/uuid.ts'
import { isAdmin, missingOverSubject, teamMembers } from './dominance.ts'
import { ACCESS_DENIED } from './rbac-middleware.ts'

// The object a resource-specific grant is about, for rows that name a resource instead of an object.
const RESOURCE_OBJECTS: [column: string, object: string][] = [
  ['config_id', 'catalog'],
  ['canary_id', 'canaries'],
  ['playbook_id', 'playbooks'],
  ['component_id', 'topology'],
  ['connection_id', 'connection'],
]

// Columns the authorizer never reads: changing them changes no one's access.
const NOTE_FIELDS = new Set(['name', 'namespace', 'description', 'source', 'error', 'created_at', 'updated_at', 'created_by', 'updated_by'])
// What an admin may change on many rows at once: notes, and taking rules away.
const BULK_FIELDS = new Set([...NOTE_FIELDS, 'deleted_at', 'until'])

const RuleFields = z.object({
  subject_type: z.string({ invalid_type_error: 'subject_type must be a string' }).optional(),
  subject: z.string({ invalid_type_error: 'subject must be a string' }).nullable().optional(),
  object: z.string({ invalid_type_error: 'object must be a string' }).nullable().optional(),
  action: z.string({ invalid_type_error: 'action must be a string' }).optional(),
  deny: z.boolean({ invalid_type_error: 'deny must be true or false' }).optional(),
})

type Row = Record<string, unknown>

function grantsOf(row: Row): { object: string; actions: string[] }[] {
  const actions = String(row.action ?? '')
    .split(',')
    .map((action) => action.trim())
    .filter(Boolean)
  const objects = new Set<string>()
  if (typeof row.object === 'string' && row.object) objects.add(row.object)
  for (const [column, object] of RESOURCE_OBJECTS) if (row[column]) objects.add(object)
  // A selector-only grant can reach any object: treat it as the widest one.
  if (objects.size === 0 && row.object_selector) objects.add('*')
  return [...objects].map((object) => ({ object, actions }))
}

function toTime(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime()
  if (typeof value !== 'string') return undefined
  const time = Date.parse(value)
  return Number.isNaN(time) ? undefined : time
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stable((value as Row)[key])}`)
      .join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

function same(stored: unknown, sent: unknown): boolean {
  if ((stored === null || stored === undefined) && (sent === null || sent === undefined)) return true
  if (stored instanceof Date) return toTime(sent) === stored.getTime()
  if (typeof stored === 'object' || typeof sent === 'object') return stable(stored) === stable(sent)
  return String(stored) === String(sent)
}

/** Fields of the patch that would change the stored row in a way the authorizer reads. */
function changedRuleFields(stored: Row, patch: Row): string[] {
  return Object.keys(patch).filter((key) => !NOTE_FIELDS.has(key) && !same(stored[key], patch[key]))
}

function isLive(row: Row): boolean {
  if (row.deleted_at !== null && row.deleted_at !== undefined) return false
  const until = toTime(row.until)
  return until === undefined || until > Date.now()
}

function singleId(req: Request): string | undefined {
  const value = req.query.id
  if (typeof value !== 'string' || !value.startsWith('eq.')) return undefined
  const id = value.slice(3)
  return isUuid(id) ? id : undefined
}

function refuse(message: string, details = 'permissions are written only over subjects and objects their author holds'): ValidateWriteResult {
  return { ok: false, status: 403, code: '42501', message, details }
}

/** Whether a deny row reaches the principal: directly, through one of their roles, or a team. */
async function appliesTo(authorizer: Authorizer, input: ValidateWriteInput, principal: Principal, row: Row): Promise<boolean> {
  const subject = String(row.subject ?? '')
  switch (row.subject_type) {
    case 'person':
      return subject === principal.personId
    case 'group':
      return (await authorizer.rolesOf(principal)).includes(subject)
    case 'team':
      return (await teamMembers(input.db, subject)).includes(principal.personId)
    default:
      return false
  }
}

const LOCKOUT: [string, string] = [
  'this deny would lock every admin out of rbac: keep at least one admin able to undo it',
  'denies on rbac or permission writes may not reach the admin group or every admin person',
]

// casbin rows a deny could live in: `p, <subject>, <object>, <action>, deny`.
const CASBIN_RULE_FIELDS = new Set(['ptype', 'v0', 'v1', 'v2', 'v3'])

/** Even for admins, a casbin deny row may not lock every admin out (see admin-lockout.ts). */
async function casbinLockout(input: ValidateWriteInput): Promise<ValidateWriteResult> {
  if (input.method === 'DELETE') return { ok: true }
  const patch = input.method === 'PATCH' ? (input.rows[0] ?? {}) : {}
  let after: Row[] = input.rows
  if (input.method === 'PATCH') {
    if (!Object.keys(patch).some((key) => CASBIN_RULE_FIELDS.has(key))) return { ok: true }
    const id = /^eq\.(\d{1,18})$/.exec(String(input.req.query.id ?? ''))?.[1]
    if (!id) return refuse('name one casbin rule (id=eq.<id>) to change what it says', 'a change of who or what a rule covers is checked row by row')
    after = (await input.db.query<Row>('SELECT * FROM casbin_rule WHERE id = $1', [id])).rows.map((row) => ({ ...row, ...patch }))
  }
  for (const row of after) {
    if (row.ptype !== 'p' || row.v3 !== 'deny') continue
    const subject = String(row.v0 ?? '')
    const rule = { subject_type: isUuid(subject) ? 'person' : 'group', subject, object: String(row.v1 ?? ''), action: String(row.v2 ?? '') }
    if (await locksAdminsOut(input.db, rule)) {
      return refuse(...LOCKOUT)
    }
  }
  return { ok: true }
}

/**
 * Permission rows decide who may do what, so writing them is rbac work (issue 10 §4), although
 * the spec's matrix lets editors write the `permissions` area:
 *  - every write needs `rbac:update`; admins (`*` on `*`) pass the checks below but the last;
 *  - a non-admin writes over every subject and object the row names, before and after the
 *    change: they must hold what the subject holds (no deny against someone above them) and
 *    the actions on the objects (no grant of what they lack);
 *  - no non-admin deletes, soft-deletes, expires, re-targets or otherwise loosens a deny rule
 *    that applies to themselves;
 *  - nobody writes a deny that would lock every admin out (admin-lockout.ts).
 * casbin rows (role grants and assignments) are written through /api/db by admins only; roles
 * are assigned through /rbac/{id}/update_role, which applies the same rule.
 */
export function createPermissionWriteValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'permissions' && input.relation !== 'casbin_rule') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }
    const admin = await isAdmin(authorizer, principal)
    if (input.relation === 'casbin_rule') {
      if (!admin) return refuse('casbin rules are written by admins only', 'assign roles with /rbac/{id}/update_role and grant with permission rows')
      return casbinLockout(input)
    }

    if (!admin) {
      const rbac = await authorizer.authorize(principal, { object: 'rbac', action: 'update' })
      if (!rbac.allowed) {
        const res = input.req.res
        if (res) {
          res.setHeader('X-Rbac-Subject', principal.personId)
          res.setHeader('X-Rbac-Object', 'rbac')
          res.setHeader('X-Rbac-Action', 'update')
        }
        return { ok: false, status: 403, code: '42501', message: ACCESS_DENIED, details: 'writing permissions needs rbac:update' }
      }
      // An upsert would change an existing row without the checks a PATCH gets.
      if (input.method === 'POST' && /resolution=/.test(String(input.req.headers.prefer ?? ''))) {
        return refuse('permissions are changed with PATCH (id=eq.<id>), not by upsert')
      }
    }

    for (const [index, row] of input.rows.entries()) {
      const parsed = RuleFields.safeParse(row)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!
        return { ok: false, status: 400, code: '22023', message: issue.message, details: `[${index}] ${issue.path.join('.')}` }
      }
    }

    const patch = input.method === 'PATCH' ? (input.rows[0] ?? {}) : {}
    let stored: Row[] = []
    if (input.method !== 'POST') {
      const id = singleId(input.req)
      if (!id) {
        if (!admin) return refuse('permissions can only be changed one at a time (id=eq.<id>) unless you are an admin')
        const wide = Object.keys(patch).filter((key) => !BULK_FIELDS.has(key))
        if (wide.length > 0) return refuse(`name one permission (id=eq.<id>) to change ${wide.join(', ')}`, 'a change of who or what a rule covers is checked row by row')
        return { ok: true }
      }
      stored = (await input.db.query<Row>('SELECT * FROM permissions WHERE id = $1', [id])).rows
    }
    const after = input.method === 'POST' ? input.rows : input.method === 'PATCH' ? stored.map((row) => ({ ...row, ...patch })) : []

    if (!admin) {
      for (const row of stored) {
        if (row.deny !== true || !isLive(row)) continue
        const loosened = input.method === 'DELETE' || changedRuleFields(row, patch).length > 0
        if (loosened && (await appliesTo(authorizer, input, principal, row))) {
          return refuse(
            'you cannot delete, expire, re-target or lift a deny rule that applies to you',
            `permission ${String(row.id)} denies ${String(row.action)} on ${String(row.object ?? 'a resource')} to you; another rbac author or an admin can change it`,
          )
        }
      }
      // A change of notes alone (description, name) touches no subject and no object.
      const touched = input.method === 'PATCH' && stored.every((row) => changedRuleFields(row, patch).length === 0) ? [] : [...stored, ...after]
      for (const row of touched) {
        const subjectType = String(row.subject_type ?? 'group')
        const subject = String(row.subject ?? '')
        const missing = await missingOverSubject(authorizer, input.db, principal, subjectType, subject)
        if (missing) {
          return refuse(`you cannot write permissions for ${subjectType} ${subject}: it holds ${missing.action} on ${missing.object}, which you do not`)
        }
        const verb = row.deny === true ? 'deny' : 'grant'
        for (const { object, actions } of grantsOf(row)) {
          for (const action of actions) {
            const decision = await authorizer.authorize(principal, { object, action })
            if (!decision.allowed) return refuse(`you cannot ${verb} ${action} on ${object}: you do not hold it yourself`)
          }
        }
      }
    }

    for (const row of after) {
      if (row.deny !== true || !isLive(row)) continue
      for (const { object, actions } of grantsOf(row)) {
        if (await locksAdminsOut(input.db, { subject_type: row.subject_type, subject: row.subject, object, action: actions.join(',') })) {
          return refuse(...LOCKOUT)
        }
      }
    }
    return { ok: true }
  }
}

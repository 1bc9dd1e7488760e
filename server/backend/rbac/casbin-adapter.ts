import type { FilteredAdapter, Model } from 'casbin'
import type { Queryable } from '#server/db/client.ts'
import {
  SELECTOR_KIND_OBJECTS,
  parseObjectSelector,
  type PermissionCondition,
} from './conditions.ts'
import type { ResourceKind } from './access-map.ts'
import { UUID_PATTERN } from '#contract/uuid.ts'

/**
 * casbin adapter over our `Db` (PGlite or pg). The maintained PostgreSQL adapters for
 * node-casbin wrap their own drivers/ORMs (pg pools, TypeORM, Sequelize) and cannot run on
 * PGlite, and none of them knows our `permissions` table; so this one is ours.
 *
 * Policy lines follow the platform's casbin layout: `p, subject, object, action, eft, condition, id`
 * (casbin_rule v0..v5) and `g, member, role`. Three sources feed one enforcer:
 *   - casbin_rule: role grants (`p, editor, canaries, create, allow, true, na`) and role
 *     assignments (`g, <person id>, editor`);
 *   - team_members: `g, <person id>, team:<team id>` so team-subject permissions apply;
 *   - permissions: one `p` line per stored permission (per selector kind), its narrowing kept
 *     aside in `conditions` under the permission id, evaluated at request time.
 */

export type PolicySubject =
  | { type: 'person'; id: string; implicitRoles: string[] }
  | { type: 'notification' | 'playbook'; id: string }

export type PolicyFilter = { subject: PolicySubject }

export const UNCONDITIONAL = 'true'
export const CONDITIONAL = 'permission'

export const TEAM_PREFIX = 'team:'

type CasbinRow = { ptype: string; v0: string | null; v1: string | null; v2: string | null; v3: string | null; v4: string | null; v5: string | null }

type PermissionRow = {
  id: string
  subject: string | null
  subject_type: string
  action: string
  object: string | null
  object_selector: unknown
  deny: boolean
  config_id: string | null
  component_id: string | null
  canary_id: string | null
  playbook_id: string | null
  connection_id: string | null
  until: Date | string | null
  agents: string[] | null
  tags: unknown
}

/** A stored permission as loaded, for whoami and the dump. */
export type LoadedPermission = {
  id: string
  subject: string
  subjectType: string
  object: string
  action: string
  deny: boolean
  condition?: PermissionCondition
}

const RESOURCE_COLUMNS: [keyof PermissionRow, ResourceKind][] = [
  ['config_id', 'config'],
  ['component_id', 'component'],
  ['canary_id', 'canary'],
  ['playbook_id', 'playbook'],
  ['connection_id', 'connection'],
]

function stringTags(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
  const tags: Record<string, string> = {}
  for (const [key, tag] of Object.entries(value as Record<string, unknown>)) tags[key] = String(tag)
  return Object.keys(tags).length > 0 ? tags : undefined
}

/** The casbin subject a stored permission row names. */
export function policySubjectOf(subjectType: string, subject: string): string {
  switch (subjectType) {
    case 'team':
      return `${TEAM_PREFIX}${subject}`
    case 'notification':
    case 'playbook':
      return `${subjectType}:${subject}`
    default:
      // person ids and role (group) names are used as they are.
      return subject
  }
}

function toPermission(row: PermissionRow): { permission: LoadedPermission; objects: string[] } | undefined {
  if (!row.subject) return undefined
  const condition: PermissionCondition = {}
  let objects: string[] = []
  if (row.object) objects = [row.object]
  for (const [column, kind] of RESOURCE_COLUMNS) {
    const id = row[column]
    if (typeof id === 'string') {
      condition.resourceId = { kind, id }
      objects = [SELECTOR_KIND_OBJECTS[kind]]
    }
  }
  if (row.object_selector) {
    const selectors = parseObjectSelector(row.object_selector)
    // An unreadable selector must not widen into an unconditional grant.
    if (selectors.length === 0) return undefined
    condition.selectors = selectors
    objects = [...new Set(selectors.map(({ kind }) => SELECTOR_KIND_OBJECTS[kind]))]
  }
  if (objects.length === 0) return undefined
  const tags = stringTags(row.tags)
  if (tags) condition.tags = tags
  if (row.agents && row.agents.length > 0) condition.agents = row.agents
  if (row.until) condition.until = new Date(row.until).getTime()
  return {
    permission: {
      id: row.id,
      subject: row.subject,
      subjectType: row.subject_type,
      object: objects.join(','),
      action: row.action.replace(/\s+/g, ''),
      deny: row.deny,
      ...(Object.keys(condition).length > 0 ? { condition } : {}),
    },
    objects,
  }
}

const PERMISSION_COLUMNS = `id, subject, subject_type, action, object, object_selector, deny, config_id, component_id,
  canary_id, playbook_id, connection_id, until, agents, tags`

export class PostgresPolicyAdapter implements FilteredAdapter {
  /** Narrowing of each loaded permission, by permission id. */
  readonly conditions = new Map<string, PermissionCondition>()
  readonly permissions: LoadedPermission[] = []
  private filtered = false

  constructor(private readonly db: Queryable) {}

  isFiltered(): boolean {
    return this.filtered
  }

  async loadPolicy(model: Model): Promise<void> {
    this.filtered = false
    this.reset()
    const rules = await this.db.query<CasbinRow>('SELECT ptype, v0, v1, v2, v3, v4, v5 FROM casbin_rule ORDER BY id')
    for (const row of rules.rows) this.addRuleRow(model, row)
    const teams = await this.db.query<{ person_id: string; team_id: string }>(
      `SELECT tm.person_id, tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id AND t.deleted_at IS NULL`,
    )
    for (const row of teams.rows) model.addPolicy('g', 'g', [row.person_id, `${TEAM_PREFIX}${row.team_id}`])
    const permissions = await this.db.query<PermissionRow>(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE deleted_at IS NULL AND (until IS NULL OR until > now())`,
    )
    for (const row of permissions.rows) this.addPermission(model, row)
  }

  async loadFilteredPolicy(model: Model, filter: PolicyFilter): Promise<void> {
    this.filtered = true
    this.reset()
    const { subject } = filter
    if (subject.type !== 'person') {
      const permissions = await this.db.query<PermissionRow>(
        `SELECT ${PERMISSION_COLUMNS} FROM permissions
          WHERE deleted_at IS NULL AND (until IS NULL OR until > now()) AND subject_type = $1 AND subject = $2`,
        [subject.type, subject.id],
      )
      for (const row of permissions.rows) this.addPermission(model, row)
      return
    }
    // Role grants are few and shared, so they load whole; person rows only for this person.
    const rules = await this.db.query<CasbinRow>(
      `SELECT ptype, v0, v1, v2, v3, v4, v5 FROM casbin_rule
        WHERE v0 = $1 OR (ptype = 'p' AND v0 !~* $2) OR (ptype = 'g' AND v0 !~* $2) ORDER BY id`,
      [subject.id, UUID_PATTERN.source],
    )
    for (const row of rules.rows) this.addRuleRow(model, row)
    for (const role of subject.implicitRoles) model.addPolicy('g', 'g', [subject.id, role])
    const teams = await this.db.query<{ team_id: string }>(
      `SELECT tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id AND t.deleted_at IS NULL
        WHERE tm.person_id = $1`,
      [subject.id],
    )
    const teamIds = teams.rows.map((row) => row.team_id)
    for (const teamId of teamIds) model.addPolicy('g', 'g', [subject.id, `${TEAM_PREFIX}${teamId}`])
    const roles = [
      ...new Set([
        ...subject.implicitRoles,
        ...rules.rows.filter((row) => row.ptype === 'g' && row.v0 === subject.id && row.v1).map((row) => row.v1!),
      ]),
    ]
    // Roles inherited through role → role links also name `group` permissions.
    for (let changed = true; changed; ) {
      changed = false
      for (const row of rules.rows) {
        if (row.ptype === 'g' && row.v0 && row.v1 && roles.includes(row.v0) && !roles.includes(row.v1)) {
          roles.push(row.v1)
          changed = true
        }
      }
    }
    const permissions = await this.db.query<PermissionRow>(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions
        WHERE deleted_at IS NULL AND (until IS NULL OR until > now()) AND (
          (subject_type = 'person' AND subject = $1)
          OR (subject_type = 'team' AND subject = ANY($2::text[]))
          OR (subject_type = 'group' AND subject = ANY($3::text[])))`,
      [subject.id, teamIds, roles],
    )
    for (const row of permissions.rows) this.addPermission(model, row)
  }

  // Enforcers built from this adapter are read-only views; writes go through SQL in the
  // routes (and invalidate the cache), so casbin's save hooks persist only plain casbin rows.
  async savePolicy(): Promise<boolean> {
    return false
  }

  async addPolicy(_sec: string, ptype: string, rule: string[]): Promise<void> {
    const values = [...rule, '', '', '', '', '', ''].slice(0, 6)
    await this.db.query(
      `INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [ptype, ...values],
    )
  }

  async removePolicy(_sec: string, ptype: string, rule: string[]): Promise<void> {
    const conditions = rule.map((_, index) => `v${index} = $${index + 2}`)
    await this.db.query(`DELETE FROM casbin_rule WHERE ptype = $1 AND ${conditions.join(' AND ')}`, [ptype, ...rule])
  }

  async removeFilteredPolicy(_sec: string, ptype: string, fieldIndex: number, ...fieldValues: string[]): Promise<void> {
    const conditions: string[] = []
    const params: string[] = [ptype]
    fieldValues.forEach((value, offset) => {
      const index = fieldIndex + offset
      if (value === '' || index > 5) return
      params.push(value)
      conditions.push(`v${index} = $${params.length}`)
    })
    await this.db.query(
      `DELETE FROM casbin_rule WHERE ptype = $1${conditions.length ? ` AND ${conditions.join(' AND ')}` : ''}`,
      params,
    )
  }

  private reset() {
    this.conditions.clear()
    this.permissions.length = 0
  }

  private addRuleRow(model: Model, row: CasbinRow) {
    if (!row.v0 || !row.v1) return
    if (row.ptype === 'g') {
      model.addPolicy('g', 'g', [row.v0, row.v1])
      return
    }
    if (row.ptype !== 'p' || !row.v2) return
    const effect = row.v3 === 'deny' ? 'deny' : 'allow'
    model.addPolicy('p', 'p', [row.v0, row.v1, row.v2, effect, UNCONDITIONAL, row.v5 || 'na'])
  }

  private addPermission(model: Model, row: PermissionRow) {
    const parsed = toPermission(row)
    if (!parsed) return
    const { permission, objects } = parsed
    this.permissions.push(permission)
    if (permission.condition) this.conditions.set(permission.id, permission.condition)
    const subject = policySubjectOf(permission.subjectType, permission.subject)
    for (const object of objects) {
      model.addPolicy('p', 'p', [
        subject,
        object,
        permission.action,
        permission.deny ? 'deny' : 'allow',
        permission.condition ? CONDITIONAL : UNCONDITIONAL,
        permission.id,
      ])
    }
  }
}

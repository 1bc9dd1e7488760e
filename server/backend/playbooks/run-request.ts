import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { ResourceRef } from '#server/backend/rbac/conditions.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { configVisibility, visibleIdSql } from '#server/backend/catalog/config-access.ts'
import { componentVisibility, visibleComponentSql } from '#server/backend/topology/component-access.ts'
import { PlaybookError, type CreatedRun } from './playbook-model.ts'
import { assertTargetExists, createPlaybookRun, loadPlaybook, targetOf, type PlaybookRecord, type RunTarget } from './run-create.ts'

/**
 * Who may run a playbook, and on what (http-api §2.5.1): `playbook:run` on the playbook and
 * `read` on the resource it runs against. Shared by `POST /playbook/run` and the MCP server's
 * run_playbook tool, so both refuse alike. A request without a principal is the system's own
 * (notifications) and is not asked.
 */

const TARGET_OBJECT: Record<RunTarget['kind'], string> = { config: 'catalog', component: 'topology', check: 'canaries' }
const TARGET_REF_SQL: Record<RunTarget['kind'], string> = {
  config: `SELECT id::text, name, NULL::text AS namespace, type, coalesce(tags, '{}'::jsonb) || coalesce(labels, '{}'::jsonb) AS tags, agent_id::text AS agent_id FROM config_items WHERE id = $1`,
  component: 'SELECT id::text, name, namespace, type, labels AS tags, agent_id::text AS agent_id FROM components WHERE id = $1',
  check: 'SELECT id::text, name, namespace, type, labels AS tags, agent_id::text AS agent_id FROM checks WHERE id = $1',
}

/**
 * The resource as narrowed permissions judge it (name, namespace, type, tags, agent); a target
 * that does not exist is judged by its id alone.
 */
export async function loadTargetRef(db: Db, target: RunTarget): Promise<ResourceRef> {
  const { rows } = await db.query<{ id: string; name: string; namespace: string | null; type: string | null; tags: Record<string, string> | null; agent_id: string | null }>(
    TARGET_REF_SQL[target.kind],
    [target.id],
  )
  const row = rows[0]
  return {
    kind: target.kind,
    id: target.id,
    ...(row?.name ? { name: row.name } : {}),
    ...(row?.namespace ? { namespace: row.namespace } : {}),
    ...(row?.type ? { type: row.type } : {}),
    ...(row?.tags ? { tags: row.tags } : {}),
    ...(row?.agent_id ? { agentId: row.agent_id } : {}),
  }
}

export type RunAuthorization = {
  may(principal: Principal | undefined, object: string, action: string, resource?: ResourceRef): Promise<boolean>
  playbookRef(playbook: PlaybookRecord): ResourceRef
  /** `read` on the resource: its permission, with narrowed grants, and the row-level scopes. */
  assertMayReadTarget(principal: Principal | undefined, target: RunTarget): Promise<void>
  assertMayRun(principal: Principal | undefined, playbook: PlaybookRecord): Promise<void>
}

export function createRunAuthorization(db: Db, authorizer: Authorizer): RunAuthorization {
  const may = async (principal: Principal | undefined, object: string, action: string, resource?: ResourceRef) =>
    !principal || (await authorizer.authorize(principal, { object, action, resource })).allowed

  const playbookRef = (playbook: PlaybookRecord): ResourceRef => ({ kind: 'playbook', id: playbook.id, name: playbook.name, namespace: playbook.namespace })

  async function assertMayReadTarget(principal: Principal | undefined, target: RunTarget): Promise<void> {
    if (!principal) return
    const ref = await loadTargetRef(db, target)
    let visible = await may(principal, TARGET_OBJECT[target.kind], 'read', ref)
    if (visible && target.kind !== 'check') {
      const params = new Params()
      const idParam = `$${params.values.push(target.id)}::uuid`
      const condition =
        target.kind === 'config'
          ? visibleIdSql(await configVisibility(authorizer, principal), idParam, params)
          : visibleComponentSql(await componentVisibility(authorizer, principal), idParam, params)
      if (condition) visible = (await db.query(`SELECT 1 WHERE ${condition}`, params.values)).rows.length > 0
    }
    if (!visible) throw new PlaybookError(403, `access denied: read permission required on ${target.kind} '${target.id}'`)
  }

  async function assertMayRun(principal: Principal | undefined, playbook: PlaybookRecord): Promise<void> {
    if (!(await may(principal, 'playbooks', 'playbook:run', playbookRef(playbook)))) {
      throw new PlaybookError(403, `access denied: playbook:run permission required on playbook '${playbook.name}'`)
    }
  }

  return { may, playbookRef, assertMayReadTarget, assertMayRun }
}

export type RunRequest = {
  id?: string
  configId?: string
  componentId?: string
  checkId?: string
  params?: Record<string, string>
  agentId?: string
  parentId?: string
  notificationSendId?: string
  request?: Record<string, unknown>
}

/**
 * Creates a run for the caller after the checks above: the playbook exists, the caller may
 * run it, the target exists and the caller may read it. Throws PlaybookError (400/403/404/…).
 */
export async function requestPlaybookRun(db: Db, authorization: RunAuthorization, principal: Principal | undefined, input: RunRequest): Promise<CreatedRun> {
  if (!input.id) throw new PlaybookError(400, 'playbook id is required')
  const target = targetOf({ configId: input.configId, componentId: input.componentId, checkId: input.checkId })
  const playbook = await loadPlaybook(db, input.id)
  await authorization.assertMayRun(principal, playbook)
  if (target) {
    await assertTargetExists(db, target)
    await authorization.assertMayReadTarget(principal, target)
  }
  return createPlaybookRun(
    db,
    {
      playbookId: playbook.id,
      ...(target?.kind === 'config' ? { configId: target.id } : {}),
      ...(target?.kind === 'component' ? { componentId: target.id } : {}),
      ...(target?.kind === 'check' ? { checkId: target.id } : {}),
      params: input.params ?? {},
      ...(input.agentId ? { agentId: input.agentId } : {}),
      ...(input.parentId ? { parentId: input.parentId } : {}),
      ...(input.notificationSendId ? { notificationSendId: input.notificationSendId } : {}),
      ...(input.request ? { request: input.request } : {}),
    },
    principal ? { kind: 'person', personId: principal.personId } : { kind: 'system', reason: 'notification' },
  )
}

import { dbClient, requireData, requirePage } from '#app/lib/data-client.server.ts'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { Choice, PermissionChoices, PermissionPayload, PermissionRowInput, PermissionSortColumn } from '#app/lib/permissions-form-shapes.ts'

/**
 * Permission rows and the pickers of the permission dialog (spec 002 §2 "Permissions"): every
 * data-API call of the permissions screen, through the typed data client.
 */

type IdName = { id: string; name: string; namespace?: string | null; email?: string | null; type?: string | null; spec?: { title?: string } | null }

const label = (row: IdName) => (row.namespace ? `${row.namespace}/${row.name}` : row.name)

async function choicesOf(query: PromiseLike<{ data: IdName[] | null; error: unknown; status: number }>, toChoice: (row: IdName) => Choice): Promise<Choice[]> {
  try {
    const rows = requireData((await query) as Parameters<typeof requireData<IdName[]>>[0])
    return (rows ?? []).map(toChoice)
  } catch (error) {
    // A list the caller may not read leaves that picker empty rather than failing the dialog.
    if (error instanceof GatewayError) return []
    throw error
  }
}

/** Every live subject and resource the dialog offers, each list by name. */
export async function loadPermissionChoices(args: ApiArgs): Promise<PermissionChoices> {
  const db = dbClient(args)
  const live = (table: string, columns: string) => db.from(table).select(columns).is('deleted_at', null).order('name')
  const typed = (row: IdName) => ({ id: row.id, label: row.type ? `${row.name} (${row.type})` : row.name })
  const [teams, people, notifications, playbooks, configs, components, canaries, connections] = await Promise.all([
    choicesOf(live('teams', 'id,name').returns<IdName[]>(), (row) => ({ id: row.id, label: row.name })),
    choicesOf(live('people', 'id,name,email').not('email', 'is', null).returns<IdName[]>(), (row) => ({ id: row.id, label: row.email ? `${row.name} (${row.email})` : row.name })),
    choicesOf(live('notifications', 'id,name,namespace').returns<IdName[]>(), (row) => ({ id: row.id, label: label(row) })),
    choicesOf(live('playbooks', 'id,name,namespace,spec').returns<IdName[]>(), (row) => ({ id: row.id, label: row.spec?.title || label(row) })),
    choicesOf(live('configs', 'id,name,type').limit(500).returns<IdName[]>(), typed),
    choicesOf(live('components', 'id,name,type').limit(500).returns<IdName[]>(), typed),
    choicesOf(live('canaries', 'id,name,namespace').returns<IdName[]>(), (row) => ({ id: row.id, label: label(row) })),
    choicesOf(live('connections', 'id,name,namespace,type').returns<IdName[]>(), (row) => ({ id: row.id, label: row.type ? `${label(row)} (${row.type})` : label(row) })),
  ])
  return { teams, people, notifications, playbooks, configs, components, canaries, connections }
}

type Named = { id?: string; name?: string; email?: string | null } | null

/** A row of permissions_summary as the list shows it: the permission and the names it points at. */
export type PermissionSummaryRow = PermissionRowInput & {
  id: string
  source?: string | null
  created_at?: string | null
  updated_at?: string | null
  object_selector?: unknown
  person?: Named
  team?: Named
  notification?: Named
  playbook?: Named
  config_object?: Named & { type?: string }
  component_object?: Named
  canary_object?: Named
  playbook_object?: Named
  connection_object?: Named & { type?: string }
}

const SORT_COLUMN: Record<PermissionSortColumn, string> = {
  action: 'action',
  effect: 'deny',
  description: 'description',
  source: 'source',
  updated: 'updated_at',
}

export type PermissionListQuery = { page: number; pageSize: number; sortBy: PermissionSortColumn | null; sortDesc: boolean }

/** One page of the permissions summary (newest first unless sorted), with the exact total. */
export async function listPermissionSummaries(args: ApiArgs, { page, pageSize, sortBy, sortDesc }: PermissionListQuery): Promise<{ rows: PermissionSummaryRow[]; total: number }> {
  const from = (page - 1) * pageSize
  let query = dbClient(args).from('permissions_summary').select('*', { count: 'exact' })
  if (sortBy) query = query.order(SORT_COLUMN[sortBy], { ascending: !sortDesc, nullsFirst: false })
  // A stable tie-break keeps paging from repeating or skipping rows of equal sort value.
  query = query.order('created_at', { ascending: false }).order('id')
  return requirePage(await query.range(from, from + pageSize - 1).returns<PermissionSummaryRow[]>())
}

/** One summary row by id (the caller checks the id is a UUID), or null. */
export async function findPermissionSummary(args: ApiArgs, id: string): Promise<PermissionSummaryRow | null> {
  const rows = requireData(await dbClient(args).from('permissions_summary').select('*').eq('id', id).returns<PermissionSummaryRow[]>())
  return rows?.[0] ?? null
}

export async function createPermission(args: ApiArgs, row: PermissionPayload, createdBy: string): Promise<void> {
  requireData(await dbClient(args).from('permissions').insert({ ...row, created_by: createdBy }))
}

export async function updatePermission(args: ApiArgs, id: string, row: PermissionPayload, updatedBy: string): Promise<void> {
  requireData(await dbClient(args).from('permissions').update({ ...row, updated_by: updatedBy }).eq('id', id))
}

export async function deletePermission(args: ApiArgs, id: string): Promise<void> {
  requireData(await dbClient(args).from('permissions').delete().eq('id', id))
}

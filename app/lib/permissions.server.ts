import type { Choice, PermissionChoices } from '#app/components/access/permission-dialog.tsx'
import { dbClient, requireData, requirePage } from '#app/lib/data-client.server.ts'
import { GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { PermissionPayload } from '#app/lib/permissions-form.ts'

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

/** One page of the permissions summary, newest first, with the exact total. */
export async function listPermissionSummaries<T>(args: ApiArgs, page: number, pageSize: number): Promise<{ rows: T[]; total: number }> {
  const from = (page - 1) * pageSize
  const query = dbClient(args).from('permissions_summary').select('*', { count: 'exact' }).order('created_at', { ascending: false })
  return requirePage(await query.range(from, from + pageSize - 1).returns<T[]>())
}

/** One summary row by id (the caller checks the id is a UUID), or null. */
export async function findPermissionSummary<T>(args: ApiArgs, id: string): Promise<T | null> {
  const rows = requireData(await dbClient(args).from('permissions_summary').select('*').eq('id', id).returns<T[]>())
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

import { dbClient, requireCount, requireData } from './data-client.server.ts'
import type { ApiArgs } from './gateway.server.ts'
import { consoleLog } from './log.server.ts'

/**
 * The catalog's calls. Its pages are not built yet and show a few live figures; each read may
 * fail while the data API is still growing, and the page then simply shows no figure.
 */

export type ConfigSummary = { id: string; name: string | null; type: string | null; health: string | null; status: string | null }

export type CatalogFigures = { items: number | null; unhealthy: number | null; changes: number | null }

/** A count, or null (logged) when the data API cannot give one. */
async function countOrNull(relation: string, count: () => PromiseLike<Parameters<typeof requireCount>[0]>): Promise<number | null> {
  try {
    return requireCount(await count())
  } catch (error) {
    consoleLog.warn({ err: error instanceof Response ? `status ${error.status}` : error, relation }, 'row count unavailable')
    return null
  }
}

/** Live config items, unhealthy ones, and recorded changes. */
export async function getCatalogFigures(args: ApiArgs): Promise<CatalogFigures> {
  const db = dbClient(args)
  const [items, unhealthy, changes] = await Promise.all([
    countOrNull('config_items', () => db.from('config_items').select('id', { count: 'exact', head: true }).is('deleted_at', null)),
    countOrNull('config_items', () =>
      db.from('config_items').select('id', { count: 'exact', head: true }).is('deleted_at', null).eq('health', 'unhealthy'),
    ),
    countOrNull('config_changes', () => db.from('config_changes').select('id', { count: 'exact', head: true })),
  ])
  return { items, unhealthy, changes }
}

/**
 * One config item's header fields: the row, null when there is no such item, or undefined when
 * the data API could not answer (the page then still shows the item by id).
 */
export async function getConfigSummary(args: ApiArgs, id: string): Promise<ConfigSummary | null | undefined> {
  try {
    const rows = requireData(
      await dbClient(args).from('config_items').select('id,name,type,health,status').eq('id', id).limit(1).returns<ConfigSummary[]>(),
    )
    return rows?.[0] ?? null
  } catch (error) {
    consoleLog.warn({ err: error instanceof Response ? `status ${error.status}` : error, relation: 'config_items' }, 'rows unavailable')
    return undefined
  }
}

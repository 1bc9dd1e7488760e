import type { Db } from '#server/db/client.ts'

type ComponentRow = {
  id: string
  parent_id: string | null
  name: string
  type: string | null
  status: string
  health: string | null
  owner: string | null
  labels: Record<string, string> | null
  icon: string | null
  namespace: string | null
  hidden: boolean
  topology_id: string | null
  external_id: string
  description: string | null
  summary: unknown
  properties: unknown
  created_at: Date
  updated_at: Date | null
}

export type TopologyQuery = {
  id?: string
  owner?: string
  labels?: Record<string, string>
  status?: string[]
  type?: string[]
  depth?: number
  flatten?: boolean
  sortBy?: string
  sortOrder?: 'asc' | 'desc'
}

/**
 * `GET /api/topology` (http-api §2.6.4): live components as a tree under `id` (or the roots),
 * `depth` levels deep, filtered by owner/labels/status/type, plus the facet lists the UI shows.
 */
export async function getTopology(db: Db, query: TopologyQuery) {
  const { rows } = await db.query<ComponentRow>(
    `SELECT id, parent_id, name, type, status, health, owner, labels, icon, namespace, hidden, topology_id, external_id,
       description, summary, properties, created_at, updated_at
     FROM components WHERE deleted_at IS NULL`,
  )
  const children = new Map<string | null, ComponentRow[]>()
  for (const row of rows) {
    const key = row.parent_id && rows.some((candidate) => candidate.id === row.parent_id) ? row.parent_id : null
    const list = children.get(key) ?? []
    list.push(row)
    children.set(key, list)
  }
  const matches = (row: ComponentRow) =>
    (!query.owner || row.owner === query.owner) &&
    (!query.status?.length || query.status.includes(row.status)) &&
    (!query.type?.length || (row.type !== null && query.type.includes(row.type))) &&
    Object.entries(query.labels ?? {}).every(([key, value]) => row.labels?.[key] === value)
  const depth = query.depth ?? 5
  const sortKey = query.sortBy ?? 'name'
  const direction = query.sortOrder === 'desc' ? -1 : 1
  const valueOf = (row: ComponentRow) =>
    sortKey.startsWith('field:') ? String((row as unknown as Record<string, unknown>)[sortKey.slice(6)] ?? '') : row.name
  const sort = (list: ComponentRow[]) => [...list].sort((a, b) => (valueOf(a) < valueOf(b) ? -direction : valueOf(a) > valueOf(b) ? direction : 0))
  const shape = (row: ComponentRow, level: number): Record<string, unknown> => {
    const node: Record<string, unknown> = {
      id: row.id,
      name: row.name,
      type: row.type ?? '',
      status: row.status,
      ...(row.health ? { health: row.health } : {}),
      ...(row.owner ? { owner: row.owner } : {}),
      ...(row.icon ? { icon: row.icon } : {}),
      ...(row.namespace ? { namespace: row.namespace } : {}),
      ...(row.labels ? { labels: row.labels } : {}),
      ...(row.parent_id ? { parent_id: row.parent_id } : {}),
      ...(row.topology_id ? { topology_id: row.topology_id } : {}),
      ...(row.description ? { description: row.description } : {}),
      ...(row.summary ? { summary: row.summary } : {}),
      external_id: row.external_id,
      created_at: row.created_at,
      ...(row.updated_at ? { updated_at: row.updated_at } : {}),
    }
    if (!query.flatten) node.components = level < depth ? sort(children.get(row.id) ?? []).filter(matches).map((child) => shape(child, level + 1)) : []
    return node
  }
  const roots = query.id ? rows.filter((row) => row.id === query.id) : children.get(null) ?? []
  let components: Record<string, unknown>[]
  if (query.flatten) {
    const flat: ComponentRow[] = []
    const visit = (list: ComponentRow[], level: number) => {
      for (const row of list) {
        if (matches(row)) flat.push(row)
        if (level < depth) visit(children.get(row.id) ?? [], level + 1)
      }
    }
    visit(roots, 0)
    components = sort(flat).map((row) => shape(row, depth))
  } else {
    components = sort(roots).filter(matches).map((row) => shape(row, 0))
  }
  const tags: Record<string, string[]> = {}
  for (const row of rows) {
    for (const [key, value] of Object.entries(row.labels ?? {})) {
      const list = (tags[key] ??= [])
      if (!list.includes(value)) list.push(value)
    }
  }
  const unique = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => Boolean(value)))].sort()
  const { rows: teamRows } = await db.query<{ name: string }>('SELECT name FROM teams WHERE deleted_at IS NULL ORDER BY name').catch(() => ({ rows: [] as { name: string }[] }))
  return {
    components,
    healthStatuses: unique(rows.map((row) => row.status)),
    teams: teamRows.map((row) => row.name),
    tags,
    types: unique(rows.map((row) => row.type)),
  }
}

import { createHash } from 'node:crypto'
import type { Db, Queryable } from '#server/db/client.ts'
import { canonicalJson } from '#server/backend/catalog/scrape-store.ts'
import { LOCAL_AGENT_ID, syncCanaries } from '#server/backend/health/canary-sync.ts'
import { rollUpTree, type RolledUp } from './component-rollup.ts'
import {
  INLINE_SELECTOR,
  inlineSource,
  mergeInlineSpecs,
  readInlineCanaries,
  sameSpec,
  trustUnchanged,
  writeInlineCanaries,
  type InlineWrite,
} from './inline-canaries.ts'
import type { EvaluatedComponent, TopologyEvaluation, TopologyRow, TopologyRunOptions, TopologyStoreSummary } from './topology-model.ts'

/**
 * Component tree → rows (topology-model.ts). One read of the topology's components and their
 * hashes (lookout.component_hashes) decides what changed, so a re-run of an unchanged topology
 * writes nothing; everything else is written level by level (a child needs its parent's id) in
 * one transaction. Links are written as diffs. Inline canaries whose spec changed get their checks
 * synced after that transaction (syncCanaries runs its own) and linked in a second, short one.
 */

type Node = {
  component: EvaluatedComponent
  parent: Node | null
  id: string | null
  /** Dot-joined ancestor ids (data-model §5.8 path). */
  path: string
  rolled: RolledUp
}

type ExistingComponent = { id: string; type: string | null; name: string; parent_id: string | null; deleted: boolean; hash: string | null }

type Link = Record<string, string | null>

const identity = (parentId: string | null, type: string | null, name: string) => JSON.stringify([parentId, type, name])

/** Columns a run writes into components, in the order of the upsert below. */
const COLUMNS: [name: string, type: string][] = [
  ['agent_id', 'uuid'], ['topology_id', 'uuid'], ['parent_id', 'uuid'], ['path', 'text'], ['external_id', 'text'],
  ['name', 'text'], ['type', 'text'], ['namespace', 'text'], ['labels', 'jsonb'], ['hidden', 'boolean'], ['icon', 'text'],
  ['owner', 'text'], ['tooltip', 'text'], ['text', 'text'], ['lifecycle', 'text'], ['description', 'text'],
  ['properties', 'jsonb'], ['selectors', 'jsonb'], ['component_checks', 'jsonb'], ['configs', 'jsonb'], ['log_selectors', 'jsonb'],
  ['status_expr', 'text'], ['health_expr', 'text'], ['config_id', 'uuid'], ['summary', 'jsonb'], ['status', 'text'],
  ['status_reason', 'text'], ['health', 'text'], ['is_leaf', 'boolean'], ['topology_type', 'text'], ['created_by', 'uuid'],
]
const UPDATED_COLUMNS = COLUMNS.filter(([name]) => !['agent_id', 'topology_id', 'parent_id', 'name', 'type', 'created_by'].includes(name))

function upsertSql(root: boolean): string {
  const names = COLUMNS.map(([name]) => name)
  const conflict = root
    ? '(topology_id, type, name) WHERE parent_id IS NULL AND topology_id IS NOT NULL AND type IS NOT NULL'
    : '(topology_id, type, name, parent_id)'
  return `INSERT INTO components (${names.join(', ')})
    SELECT ${names.map((name) => `x.${name}`).join(', ')}
    FROM jsonb_to_recordset($1::jsonb) AS x(${COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})
    ON CONFLICT ${conflict} DO UPDATE SET
      ${UPDATED_COLUMNS.map(([name]) => `${name} = EXCLUDED.${name}`).join(', ')}, deleted_at = NULL
    RETURNING id, type, name, parent_id, (xmax = 0) AS inserted`
}

function rowOf(node: Node, topology: TopologyRow, rootType: string, parentId: string | null, configId: string | null): Record<string, unknown> {
  const c = node.component
  return {
    agent_id: topology.agent_id || LOCAL_AGENT_ID,
    topology_id: topology.id,
    parent_id: parentId,
    path: node.path,
    external_id: c.externalId,
    name: c.name,
    type: c.type,
    namespace: c.namespace ?? topology.namespace,
    labels: c.labels ?? null,
    hidden: c.hidden ?? false,
    icon: c.icon ?? null,
    owner: c.owner ?? null,
    tooltip: c.tooltip ?? null,
    text: c.text ?? null,
    lifecycle: c.lifecycle ?? null,
    description: c.description ?? null,
    properties: c.properties ?? null,
    selectors: c.selectors ?? null,
    component_checks: c.componentChecks ?? null,
    configs: c.configs ?? null,
    log_selectors: c.logSelectors ?? null,
    status_expr: c.statusExpr ?? null,
    health_expr: c.healthExpr ?? null,
    config_id: configId,
    summary: node.rolled.summary,
    status: node.rolled.status,
    status_reason: node.rolled.statusReason,
    health: node.rolled.health,
    is_leaf: c.children.length === 0,
    topology_type: rootType,
    created_by: topology.created_by,
  }
}

function hashOf(row: Record<string, unknown>): string {
  const { created_by: _createdBy, ...content } = row
  return createHash('sha1').update(canonicalJson(content)).digest('base64')
}

/** The tree level by level; a second sibling with the same (type, name) is dropped and reported. */
function levelsOf(root: EvaluatedComponent, errors: string[]): { levels: EvaluatedComponent[][]; parentOf: Map<EvaluatedComponent, EvaluatedComponent> } {
  const levels: EvaluatedComponent[][] = []
  const parentOf = new Map<EvaluatedComponent, EvaluatedComponent>()
  let current = [root]
  const parents = new Map<EvaluatedComponent, string>([[root, root.name]])
  while (current.length > 0) {
    levels.push(current)
    const next: EvaluatedComponent[] = []
    for (const component of current) {
      const seen = new Set<string>()
      const kept: EvaluatedComponent[] = []
      for (const child of component.children) {
        const key = `${child.type}\u0000${child.name}`
        const where = `${parents.get(component)}/${child.name}`
        if (seen.has(key)) {
          errors.push(`component ${where}: another ${child.type || 'component'} of that name under the same parent; only the first is kept`)
          continue
        }
        seen.add(key)
        kept.push(child)
        parents.set(child, where)
        parentOf.set(child, component)
      }
      // Dropped duplicates must not count in the parent's roll-up either.
      if (kept.length !== component.children.length) component.children = kept
      next.push(...kept)
    }
    current = next
  }
  return { levels, parentOf }
}

type LinkSpec = {
  table: string
  /** Columns of the unique key the diff compares (and ON CONFLICT targets). */
  key: string[]
  /** Other columns written; a difference in them is an update. */
  values: string[]
  types: Record<string, string>
  conflict: string
  /** Vanished links: soft-deleted, or deleted where the table has no deleted_at. */
  soft: boolean
  /** Joins that keep only links whose target still exists (a FK failure would undo the whole run). */
  targets: string
}

const CHECK_LINKS: LinkSpec = {
  table: 'check_component_relationships',
  key: ['component_id', 'check_id', 'canary_id', 'selector_id'],
  values: [],
  types: { component_id: 'uuid', check_id: 'uuid', canary_id: 'uuid', selector_id: 'text' },
  conflict: '(component_id, check_id, canary_id, selector_id)',
  soft: true,
  targets: 'JOIN checks t ON t.id = x.check_id AND t.canary_id = x.canary_id',
}
const CONFIG_LINKS: LinkSpec = {
  table: 'config_component_relationships',
  key: ['component_id', 'config_id'],
  values: ['selector_id'],
  types: { component_id: 'uuid', config_id: 'uuid', selector_id: 'text' },
  conflict: '(component_id, config_id)',
  soft: true,
  targets: 'JOIN config_items t ON t.id = x.config_id',
}
const COMPONENT_LINKS: LinkSpec = {
  table: 'component_relationships',
  key: ['relationship_id', 'component_id', 'selector_id'],
  values: ['relationship_path'],
  types: { relationship_id: 'uuid', component_id: 'uuid', selector_id: 'text', relationship_path: 'text' },
  conflict: '(component_id, relationship_id, selector_id)',
  soft: true,
  targets: 'JOIN components t ON t.id = x.component_id',
}
const TEAM_LINKS: LinkSpec = {
  table: 'team_components',
  key: ['component_id', 'team_id'],
  values: ['role', 'selector_id'],
  types: { component_id: 'uuid', team_id: 'uuid', role: 'text', selector_id: 'text' },
  conflict: '(team_id, component_id)',
  soft: false,
  targets: 'JOIN teams t ON t.id = x.team_id AND t.deleted_at IS NULL',
}

const linkKey = (spec: LinkSpec, link: Link) => JSON.stringify(spec.key.map((column) => link[column] ?? null))
const sameValues = (spec: LinkSpec, a: Link, b: Link) => spec.values.every((column) => (a[column] ?? null) === (b[column] ?? null))

/**
 * Brings one link table in line with `desired` for the components in `owners` (the column
 * `ownerColumn` says which side is the component): new links inserted, deleted ones revived,
 * changed values updated, vanished ones removed; unchanged ones cost nothing.
 */
async function diffLinks(
  tx: Queryable,
  spec: LinkSpec,
  ownerColumn: string,
  owners: string[],
  desired: Link[],
  skip: (link: Link) => boolean = () => false,
): Promise<number> {
  if (owners.length === 0) return 0
  const deletedColumn = spec.soft ? ', r.deleted_at IS NOT NULL AS deleted' : ', false AS deleted'
  const { rows } = await tx.query<Link & { deleted: boolean }>(
    `SELECT ${[...spec.key, ...spec.values].map((column) => `r.${column}::text AS ${column}`).join(', ')}${deletedColumn}
     FROM ${spec.table} r WHERE r.${ownerColumn} = ANY($1::uuid[])`,
    [owners],
  )
  const existing = new Map(rows.map((row) => [linkKey(spec, row), row]))
  const wanted = new Map<string, Link>()
  for (const link of desired) wanted.set(linkKey(spec, link), link)
  const upserts: Link[] = []
  for (const [key, link] of wanted) {
    const row = existing.get(key)
    if (row && !row.deleted && sameValues(spec, row, link)) continue
    upserts.push(link)
  }
  const removals: Link[] = []
  for (const [key, row] of existing) {
    if (row.deleted || wanted.has(key) || skip(row)) continue
    removals.push(row)
  }
  let writes = 0
  const columns = [...spec.key, ...spec.values]
  const recordset = `jsonb_to_recordset($1::jsonb) AS x(${columns.map((column) => `${column} ${spec.types[column]}`).join(', ')})`
  if (upserts.length > 0) {
    const set = [...spec.values.map((column) => `${column} = EXCLUDED.${column}`), ...(spec.soft ? ['deleted_at = NULL'] : [])]
    const { rowCount } = await tx.query(
      `INSERT INTO ${spec.table} (${columns.join(', ')})
       SELECT ${columns.map((column) => `x.${column}`).join(', ')} FROM ${recordset} ${spec.targets}
       ON CONFLICT ${spec.conflict} DO ${set.length > 0 ? `UPDATE SET ${set.join(', ')}` : 'NOTHING'}`,
      [JSON.stringify(upserts)],
    )
    writes += rowCount
  }
  if (removals.length > 0) {
    const match = spec.key.map((column) => `r.${column} IS NOT DISTINCT FROM x.${column}`).join(' AND ')
    const { rowCount } = await tx.query(
      spec.soft
        ? `UPDATE ${spec.table} r SET deleted_at = now() FROM ${recordset} WHERE ${match} AND r.deleted_at IS NULL`
        : `DELETE FROM ${spec.table} r USING ${recordset} WHERE ${match}`,
      [JSON.stringify(removals)],
    )
    writes += rowCount
  }
  return writes
}

type CheckState = { id: string; canary_id: string; status: string | null }

export async function storeTopology(db: Db, topology: TopologyRow, evaluation: TopologyEvaluation, options: TopologyRunOptions): Promise<TopologyStoreSummary> {
  const errors: string[] = []
  const { levels, parentOf } = levelsOf(evaluation.root, errors)
  const rootType = evaluation.root.type

  const outcome = await db.transaction(async (tx) => {
    let rowWrites = 0
    const { rows: existingRows } = await tx.query<ExistingComponent>(
      `SELECT c.id, c.type, c.name, c.parent_id, c.deleted_at IS NOT NULL AS deleted, h.hash
       FROM components c LEFT JOIN lookout.component_hashes h ON h.component_id = c.id
       WHERE c.topology_id = $1`,
      [topology.id],
    )
    const existingByIdentity = new Map(existingRows.map((row) => [identity(row.parent_id, row.type, row.name), row]))

    // Existing ids for the roll-up's inline checks: a component is matched through its parent's id.
    const knownIds = new Map<EvaluatedComponent, string>()
    for (const level of levels) {
      for (const component of level) {
        const parentId = component === evaluation.root ? null : knownIds.get(parentOf.get(component)!) ?? undefined
        if (parentId === undefined) continue
        const row = existingByIdentity.get(identity(parentId, component.type, component.name))
        if (row) knownIds.set(component, row.id)
      }
    }

    const inlineCanaries = await readInlineCanaries(tx, topology.id)
    const linkedCheckIds = new Set<string>()
    for (const level of levels) for (const component of level) for (const link of component.links.checks) linkedCheckIds.add(link.checkId)
    const inlineCanaryIds = [...inlineCanaries.values()].map((canary) => canary.id)
    const { rows: checkRows } = await tx.query<CheckState>(
      `SELECT k.id, k.canary_id, coalesce(u.status, k.status) AS status
       FROM checks k LEFT JOIN checks_unlogged u ON u.check_id = k.id
       WHERE k.deleted_at IS NULL AND (k.id = ANY($1::uuid[]) OR k.canary_id = ANY($2::uuid[]))`,
      [[...linkedCheckIds], inlineCanaryIds],
    )
    const checks = new Map(checkRows.map((row) => [row.id, row]))
    const checksOfCanary = new Map<string, CheckState[]>()
    for (const row of checkRows) checksOfCanary.set(row.canary_id, [...(checksOfCanary.get(row.canary_id) ?? []), row])
    const inlineChecksOf = (component: EvaluatedComponent): CheckState[] => {
      const id = knownIds.get(component)
      const canary = id && component.inlineCanaries.length > 0 ? inlineCanaries.get(inlineSource(id)) : undefined
      return canary ? checksOfCanary.get(canary.id) ?? [] : []
    }

    const { results, errors: rollUpErrors } = rollUpTree(evaluation.root, (component) => {
      const statuses = new Map<string, string | null>()
      for (const link of component.links.checks) {
        const check = checks.get(link.checkId)
        if (check) statuses.set(check.id, check.status)
      }
      for (const check of inlineChecksOf(component)) statuses.set(check.id, check.status)
      return [...statuses.values()]
    })
    errors.push(...rollUpErrors)

    // A config_id naming no catalog item would fail the whole run on its foreign key.
    const configIds = [...new Set(levels.flat().map((component) => component.configId).filter((id): id is string => Boolean(id)))]
    const knownConfigs = new Set<string>()
    if (configIds.length > 0) {
      const { rows } = await tx.query<{ id: string }>('SELECT id FROM config_items WHERE id = ANY($1::uuid[])', [configIds])
      for (const row of rows) knownConfigs.add(row.id)
    }

    const nodes = new Map<EvaluatedComponent, Node>()
    const matched = new Set<string>()
    let created = 0
    let updated = 0
    let unchanged = 0
    for (const [depth, level] of levels.entries()) {
      const writes: { node: Node; row: Record<string, unknown>; hash: string }[] = []
      for (const component of level) {
        const parent = depth === 0 ? null : nodes.get(parentOf.get(component)!)!
        const path = parent ? (parent.path ? `${parent.path}.${parent.id}` : parent.id!) : ''
        const node: Node = { component, parent, id: null, path, rolled: results.get(component)! }
        nodes.set(component, node)
        let configId = component.configId ?? null
        if (configId && !knownConfigs.has(configId)) {
          errors.push(`component ${component.name}: config ${configId} does not exist; configID left empty`)
          configId = null
        }
        const row = rowOf(node, topology, rootType, parent?.id ?? null, configId)
        const hash = hashOf(row)
        const existing = existingByIdentity.get(identity(parent?.id ?? null, component.type, component.name))
        if (existing) matched.add(existing.id)
        if (existing && !existing.deleted && existing.hash === hash) {
          node.id = existing.id
          unchanged += 1
          continue
        }
        writes.push({ node, row, hash })
      }
      if (writes.length === 0) continue
      const { rows } = await tx.query<{ id: string; type: string; name: string; parent_id: string | null; inserted: boolean }>(
        upsertSql(depth === 0),
        [JSON.stringify(writes.map((write) => write.row))],
      )
      rowWrites += rows.length
      const returned = new Map(rows.map((row) => [identity(row.parent_id, row.type, row.name), row]))
      for (const write of writes) {
        const row = returned.get(identity(write.node.parent?.id ?? null, write.node.component.type, write.node.component.name))
        if (!row) throw new Error(`component ${write.node.component.name} was not written`)
        write.node.id = row.id
        if (row.inserted) created += 1
        else updated += 1
      }
      const hashed = await tx.query(
        `INSERT INTO lookout.component_hashes (component_id, hash)
         SELECT * FROM unnest($1::uuid[], $2::text[])
         ON CONFLICT (component_id) DO UPDATE SET hash = EXCLUDED.hash`,
        [writes.map((write) => write.node.id), writes.map((write) => write.hash)],
      )
      rowWrites += hashed.rowCount
    }

    // After a failed lookup the tree lacks components that may still exist: keep them until a complete run.
    const gone = evaluation.incomplete ? [] : existingRows.filter((row) => !row.deleted && !matched.has(row.id)).map((row) => row.id)
    let deleted = 0
    if (gone.length > 0) {
      // The components trigger marks their links deleted and drops their team links.
      const { rowCount } = await tx.query('UPDATE components SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL', [gone])
      deleted = rowCount
      rowWrites += rowCount
    }

    // Inline canaries: created or replaced only when their merged spec differs.
    const live = [...nodes.values()]
    const inlineWrites: InlineWrite[] = []
    const inlineRemovals: string[] = []
    const inlineKept: string[] = []
    const pendingInline = new Set<string>()
    for (const node of live) {
      const spec = mergeInlineSpecs(node.component.inlineCanaries, topology)
      const existing = inlineCanaries.get(inlineSource(node.id!))
      const moved = existing && (existing.name !== node.component.name || existing.namespace !== topology.namespace)
      if (existing && (!spec || moved)) inlineRemovals.push(existing.id)
      if (spec && (!existing || moved || !sameSpec(existing.spec, spec))) {
        inlineWrites.push({ componentId: node.id!, name: node.component.name, spec })
        pendingInline.add(node.id!)
      } else if (spec && existing) {
        inlineKept.push(existing.id)
      }
    }
    for (const id of gone) {
      const existing = inlineCanaries.get(inlineSource(id))
      if (existing) inlineRemovals.push(existing.id)
    }
    const inline = await writeInlineCanaries(tx, topology, inlineWrites, inlineRemovals, options.trusted === true)
    rowWrites += inline.rowWrites
    if (options.trusted === true) rowWrites += await trustUnchanged(tx, inlineKept)

    // Links, as diffs against what the live components have now.
    const ids = live.map((node) => node.id!)
    const checkLinks: Link[] = []
    const configLinks: Link[] = []
    const componentLinks: Link[] = []
    const teamLinks: Link[] = []
    for (const node of live) {
      const id = node.id!
      for (const link of node.component.links.checks) {
        // Only live checks: a deleted one's link would be offered again on every run.
        if (!checks.has(link.checkId)) continue
        checkLinks.push({ component_id: id, check_id: link.checkId, canary_id: link.canaryId, selector_id: link.selectorId })
      }
      if (!pendingInline.has(id)) {
        for (const check of inlineChecksOf(node.component)) {
          checkLinks.push({ component_id: id, check_id: check.id, canary_id: check.canary_id, selector_id: INLINE_SELECTOR })
        }
      }
      for (const link of node.component.links.configs) configLinks.push({ component_id: id, config_id: link.configId, selector_id: link.selectorId })
      for (const link of node.component.links.components) {
        componentLinks.push({ relationship_id: id, component_id: link.componentId, selector_id: link.selectorId, relationship_path: link.relationshipPath ?? null })
      }
      for (const link of node.component.links.teams) teamLinks.push({ component_id: id, team_id: link.teamId, role: link.role ?? null, selector_id: link.selectorId })
    }
    // The inline links of a canary being re-synced are left to linkInlineChecks, after the sync.
    rowWrites += await diffLinks(tx, CHECK_LINKS, 'component_id', ids, checkLinks, (link) => link.selector_id === INLINE_SELECTOR && pendingInline.has(link.component_id!))
    rowWrites += await diffLinks(tx, CONFIG_LINKS, 'component_id', ids, configLinks)
    rowWrites += await diffLinks(tx, COMPONENT_LINKS, 'relationship_id', ids, componentLinks)
    rowWrites += await diffLinks(tx, TEAM_LINKS, 'component_id', ids, teamLinks)

    return { rowWrites, created, updated, unchanged, deleted, components: live.length, written: inline.written }
  })

  let rowWrites = outcome.rowWrites
  if (outcome.written.length > 0) rowWrites += await linkInlineChecks(db, outcome.written, options)

  return {
    components: outcome.components,
    created: outcome.created,
    updated: outcome.updated,
    unchanged: outcome.unchanged,
    deleted: outcome.deleted,
    rowWrites,
    ...(errors.length > 0 ? { errors } : {}),
  }
}

/** Materialises the checks of the inline canaries just written (canary-sync) and links them to their components. */
async function linkInlineChecks(db: Db, written: { componentId: string; canaryId: string }[], options: TopologyRunOptions): Promise<number> {
  for (const { canaryId } of written) await syncCanaries(db, { canaryId, wait: true, logger: options.logger })
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; canary_id: string }>(
      'SELECT id, canary_id FROM checks WHERE canary_id = ANY($1::uuid[]) AND deleted_at IS NULL',
      [written.map((entry) => entry.canaryId)],
    )
    const componentOf = new Map(written.map((entry) => [entry.canaryId, entry.componentId]))
    const links = rows.map((row) => ({ component_id: componentOf.get(row.canary_id)!, check_id: row.id, canary_id: row.canary_id, selector_id: INLINE_SELECTOR }))
    return diffLinks(tx, CHECK_LINKS, 'component_id', written.map((entry) => entry.componentId), links, (link) => link.selector_id !== INLINE_SELECTOR)
  })
}

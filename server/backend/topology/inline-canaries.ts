import type { Queryable } from '#server/db/client.ts'
import { scheduleTextOf } from '#contract/canary/schedule.ts'
import { canonicalJson } from '#server/backend/catalog/scrape-store.ts'
import { LOCAL_AGENT_ID } from '#server/backend/health/canary-sync.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'
import type { EvaluatedComponent, TopologyRow } from './topology-model.ts'

/**
 * A component's `checks: [{inline: <canary spec>}]` entries become one canary of its own
 * (source `component=<id>`, data-model §4.1), which the check engine runs like any other; its
 * checks are linked to the component with selector_id `inline`.
 */
export const INLINE_SELECTOR = 'inline'

/** Inline canaries run on this schedule when neither the entries nor the topology name one. */
const DEFAULT_INLINE_SCHEDULE = '@every 5m'

export function inlineSource(componentId: string): string {
  return `component=${componentId}`
}

/**
 * The component's inline specs as one canary spec: check lists are concatenated, and a setting
 * given by several entries (schedule, owner, severity…) is taken from the first that gives it.
 */
export function mergeInlineSpecs(entries: EvaluatedComponent['inlineCanaries'], topology: TopologyRow): Record<string, unknown> | null {
  if (entries.length === 0) return null
  const merged: Record<string, unknown> = {}
  for (const { spec } of entries) {
    for (const [key, value] of Object.entries(spec ?? {})) {
      if (Array.isArray(value)) merged[key] = [...(Array.isArray(merged[key]) ? (merged[key] as unknown[]) : []), ...value]
      else if (!(key in merged)) merged[key] = value
    }
  }
  if (scheduleTextOf(merged) === null) {
    const topologySchedule = typeof topology.spec.schedule === 'string' && topology.spec.schedule.trim() !== '' ? topology.spec.schedule.trim() : null
    merged.schedule = topologySchedule ?? DEFAULT_INLINE_SCHEDULE
  }
  return merged
}

export type ExistingInlineCanary = { id: string; source: string; name: string; namespace: string; spec: Record<string, unknown> }

/** Live inline canaries of a topology's components (deleted components included), by source. */
export async function readInlineCanaries(tx: Queryable, topologyId: string): Promise<Map<string, ExistingInlineCanary>> {
  const { rows } = await tx.query<ExistingInlineCanary>(
    `SELECT cn.id, cn.source, cn.name, cn.namespace, cn.spec FROM canaries cn
     WHERE cn.agent_id = $2 AND cn.deleted_at IS NULL
       AND cn.source IN (SELECT 'component=' || c.id::text FROM components c WHERE c.topology_id = $1)`,
    [topologyId, LOCAL_AGENT_ID],
  )
  return new Map(rows.map((row) => [row.source, row]))
}

export type InlineWrite = { componentId: string; name: string; spec: Record<string, unknown> }

/**
 * Creates or replaces the canaries whose spec differs (`writes`) and soft-deletes those no
 * longer wanted (their checks and links follow through the canaries trigger). Returns the ids
 * of the canaries written, whose checks must be synced, and the rows written.
 */
export async function writeInlineCanaries(
  tx: Queryable,
  topology: TopologyRow,
  writes: InlineWrite[],
  removals: string[],
  trusted: boolean,
): Promise<{ written: { componentId: string; canaryId: string }[]; rowWrites: number }> {
  let rowWrites = 0
  const written: { componentId: string; canaryId: string }[] = []
  // Removals first: a canary moving to another namespace is replaced, and the old one must be gone by then.
  if (removals.length > 0) {
    const { rowCount } = await tx.query('UPDATE canaries SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL', [removals])
    rowWrites += rowCount
  }
  for (const write of writes) {
    const { rows, rowCount } = await tx.query<{ id: string }>(
      `INSERT INTO canaries (agent_id, name, namespace, spec, source, created_by)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)
       ON CONFLICT (agent_id, name, namespace, source) WHERE deleted_at IS NULL AND agent_id = '${LOCAL_AGENT_ID}'
       DO UPDATE SET spec = EXCLUDED.spec
       RETURNING id`,
      [LOCAL_AGENT_ID, write.name, topology.namespace, JSON.stringify(write.spec), inlineSource(write.componentId), topology.created_by],
    )
    rowWrites += rowCount
    // The checks inherit the topology's trust: an exec holder's topology may reach this server's own addresses.
    if (trusted) {
      await recordSpecTrust(tx, write.spec, 'server')
      rowWrites += 1
    }
    written.push({ componentId: write.componentId, canaryId: rows[0]!.id })
  }
  return { written, rowWrites }
}

/**
 * A trusted topology's unchanged inline canaries whose spec carries no server trust yet (the
 * topology became an exec holder's after they were written): trusted now. One read; no write
 * when every spec is already trusted, so an unchanged run stays write-free.
 */
export async function trustUnchanged(tx: Queryable, canaryIds: string[]): Promise<number> {
  if (canaryIds.length === 0) return 0
  const { rows } = await tx.query<{ spec: Record<string, unknown> }>(
    `SELECT c.spec FROM canaries c
     WHERE c.id = ANY($1::uuid[])
       AND NOT EXISTS (SELECT 1 FROM lookout.check_spec_trust t WHERE t.spec_hash = md5(c.spec::text) AND t.trusted_by = 'server')`,
    [canaryIds],
  )
  for (const row of rows) await recordSpecTrust(tx, row.spec, 'server')
  return rows.length
}

export function sameSpec(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b)
}

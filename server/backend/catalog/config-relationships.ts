import { z } from 'zod'
import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { visibleItemSql, type ConfigVisibility } from './config-access.ts'

/**
 * `GET /api/catalog/{id}/relationships`: the items related to one config item, walked up to
 * `depth` levels (related configs go at most 10 deep, spec 000 §9) through
 * `config_relationships_recursive`, with the item's ancestors from its path among the incoming
 * ones (as `related_configs_recursive` adds them). The reference names the route without a
 * shape; this one is docs/decisions/021's.
 */

export const MAX_RELATIONSHIP_DEPTH = 10

const flag = z.preprocess((value) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value), z.boolean())
export const RelationshipsQuerySchema = z.object({
  direction: z.enum(['incoming', 'outgoing', 'all']).default('all'),
  depth: z.coerce.number().int().min(1).max(MAX_RELATIONSHIP_DEPTH).default(5),
  include_deleted: flag.default(false),
})
export type RelationshipsQuery = z.infer<typeof RelationshipsQuerySchema>

/** The answer as JSON text, or null when the item does not exist or the caller may not see it. */
export async function configRelationships(db: Db, id: string, query: RelationshipsQuery, visibility: ConfigVisibility): Promise<string | null> {
  const params = new Params()
  const anchor = `${params.text(id)}::uuid`
  const visibleAnchor = visibleItemSql(visibility, 'ci.tags', 'ci.agent_id', params)
  const visible = visibleItemSql(visibility, 'c.tags', 'c.agent_id', params)
  const includeDeleted = query.include_deleted ? 'true' : 'false'
  const walkIn = query.direction !== 'outgoing'
  const item = (direction: 'incoming' | 'outgoing') => `coalesce((SELECT json_agg(jsonb_build_object(
      'id', c.id, 'name', c.name, 'type', c.type, 'health', c.health, 'status', c.status, 'tags', c.tags,
      'deleted_at', c.deleted_at, 'depth', r.depth, 'direction', r.direction, 'relation', r.relation,
      'related_ids', coalesce((SELECT n.map FROM neighbours n) -> (c.id::text || ':' || r.direction), '[]'::jsonb))
      ORDER BY r.depth, c.name, c.id)
    FROM reached r JOIN public.config_items c ON c.id = r.id
    WHERE r.direction = '${direction}' AND (${includeDeleted} OR c.deleted_at IS NULL)${visible ? ` AND ${visible}` : ''}), '[]')`
  const sql = `WITH anchor AS (
      SELECT ci.id, ci.path FROM public.config_items ci WHERE ci.id = ${anchor}${visibleAnchor ? ` AND ${visibleAnchor}` : ''}),
    edges AS (
      SELECT w.* FROM anchor a
      CROSS JOIN LATERAL public.config_relationships_recursive(a.id, ${params.text(query.direction)}, ${includeDeleted}, ${params.text(String(query.depth))}::int) AS w),
    ancestors AS (
      SELECT text_to_uuid(p.value) AS id, (p.total - p.position + 1)::int AS depth
      FROM anchor a CROSS JOIN LATERAL (
        SELECT s.value, s.position, count(*) OVER () AS total
        FROM unnest(string_to_array(a.path, '.')) WITH ORDINALITY AS s (value, position)) AS p
      WHERE ${walkIn ? 'true' : 'false'} AND text_to_uuid(p.value) IS NOT NULL AND text_to_uuid(p.value) <> a.id
        AND (p.total - p.position + 1) <= ${params.text(String(query.depth))}::int),
    -- One object keyed by "<id>:<direction>": each item's lookup is a key read, not a join the
    -- planner may turn into a nested loop over thousands of rows.
    neighbours AS (
      SELECT coalesce(jsonb_object_agg(x.key, x.ids), '{}'::jsonb) AS map
      FROM (SELECT e.id::text || ':' || e.direction AS key, jsonb_agg(DISTINCT e.related_id) AS ids FROM edges e GROUP BY e.id, e.direction) x),
    reached AS (
      SELECT x.id, x.direction, min(x.depth) AS depth, (array_agg(x.relation ORDER BY x.depth))[1] AS relation
      FROM (
        SELECT e.related_id AS id, e.direction, e.depth, e.relation_type AS relation FROM edges e
        UNION ALL SELECT an.id, 'incoming', an.depth, 'parent' FROM ancestors an
      ) x
      WHERE x.id <> (SELECT a.id FROM anchor a)
      GROUP BY x.id, x.direction)
    SELECT CASE WHEN EXISTS (SELECT 1 FROM anchor) THEN json_build_object(
      'id', (SELECT a.id FROM anchor a),
      'direction', ${params.text(query.direction)},
      'depth', ${params.text(String(query.depth))}::int,
      'incoming', ${item('incoming')},
      'outgoing', ${item('outgoing')},
      'edges', coalesce((SELECT json_agg(json_build_object('config_id', x.config_id, 'related_id', x.related_id, 'relation', x.relation, 'depth', x.depth)
                          ORDER BY x.depth, x.config_id, x.related_id)
        FROM (SELECT
                CASE WHEN e.direction = 'outgoing' THEN e.id ELSE e.related_id END AS config_id,
                CASE WHEN e.direction = 'outgoing' THEN e.related_id ELSE e.id END AS related_id,
                e.relation_type AS relation, min(e.depth) AS depth
              FROM edges e GROUP BY 1, 2, 3) x
        WHERE EXISTS (SELECT 1 FROM public.config_items c WHERE c.id = x.config_id AND (${includeDeleted} OR c.deleted_at IS NULL)${visible ? ` AND ${visible}` : ''})
          AND EXISTS (SELECT 1 FROM public.config_items c WHERE c.id = x.related_id AND (${includeDeleted} OR c.deleted_at IS NULL)${visible ? ` AND ${visible}` : ''})), '[]')
    )::text END AS body`
  const { rows } = await db.query<{ body: string | null }>(sql, params.values)
  return rows[0]?.body ?? null
}

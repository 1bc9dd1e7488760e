-- Catalog API (issue 14 part C, docs/decisions/021).
--
-- config_relationships_recursive (and so related_configs_recursive, related_configs and the
-- catalog API's walks) went as deep as the caller asked; the spec caps related configs at 10
-- levels (000 §9), so the walk now clamps its depth to 1..10 whatever the caller passes.

CREATE OR REPLACE FUNCTION config_relationships_recursive(
  config_id uuid,
  type_filter text DEFAULT 'outgoing',
  include_deleted_configs boolean DEFAULT false,
  max_depth integer DEFAULT 5,
  incoming_relation text DEFAULT 'both',
  outgoing_relation text DEFAULT 'both')
RETURNS TABLE (id uuid, related_id uuid, relation_type text, direction text, depth integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  start_id uuid := config_id;
  filter text := lower(coalesce(nullif(type_filter, ''), 'all'));
  walk_out boolean;
  walk_in boolean;
  hard_out boolean := lower(coalesce(outgoing_relation, 'both')) = 'hard';
  hard_in boolean := lower(coalesce(incoming_relation, 'both')) = 'hard';
  depth_limit integer;
BEGIN
  IF filter NOT IN ('incoming', 'outgoing', 'all') THEN
    RAISE EXCEPTION 'invalid type_filter %: expected incoming, outgoing or all', type_filter USING ERRCODE = '22023';
  END IF;
  IF lower(coalesce(outgoing_relation, 'both')) NOT IN ('both', 'hard') OR lower(coalesce(incoming_relation, 'both')) NOT IN ('both', 'hard') THEN
    RAISE EXCEPTION 'invalid relation filter: expected both or hard' USING ERRCODE = '22023';
  END IF;
  -- Related configs go at most 10 deep (spec 000 §9); a missing or smaller-than-one depth walks one level.
  depth_limit := least(greatest(coalesce(max_depth, 5), 1), 10);
  walk_out := filter IN ('outgoing', 'all');
  walk_in := filter IN ('incoming', 'all');

  RETURN QUERY
  WITH RECURSIVE walk (id, related_id, relation_type, direction, depth) AS (
    SELECT r.config_id, r.related_id, r.relation, 'outgoing'::text, 1
    FROM config_relationships r
    WHERE walk_out AND r.config_id = start_id AND r.deleted_at IS NULL AND (NOT hard_out OR r.relation = 'hard')
    UNION
    SELECT r.related_id, r.config_id, r.relation, 'incoming'::text, 1
    FROM config_relationships r
    WHERE walk_in AND r.related_id = start_id AND r.deleted_at IS NULL AND (NOT hard_in OR r.relation = 'hard')
    UNION
    SELECT
      CASE WHEN w.direction = 'outgoing' THEN r.config_id ELSE r.related_id END,
      CASE WHEN w.direction = 'outgoing' THEN r.related_id ELSE r.config_id END,
      r.relation, w.direction, w.depth + 1
    FROM walk w
    JOIN config_relationships r
      ON (w.direction = 'outgoing' AND r.config_id = w.related_id AND (NOT hard_out OR r.relation = 'hard'))
      OR (w.direction = 'incoming' AND r.related_id = w.related_id AND (NOT hard_in OR r.relation = 'hard'))
    WHERE w.depth < depth_limit
      AND r.deleted_at IS NULL
      AND w.related_id <> start_id
      AND (include_deleted_configs OR EXISTS (
        SELECT 1 FROM config_items ci WHERE ci.id = w.related_id AND ci.deleted_at IS NULL))
  )
  SELECT w.id, w.related_id, w.relation_type, w.direction, min(w.depth)::integer
  FROM walk w
  GROUP BY w.id, w.related_id, w.relation_type, w.direction;
END
$$;

-- The notification read helpers data-model §8.5 names beside the two summary views, which
-- 0010 already defines. notifications_summary matches §8.5 column for column.
-- notification_send_history_summary keeps `resource_type` = the kind (0010 and data-model §13
-- item 19: the 1.4.48 client filters resource_type by kind, and tests/db/schema.test.ts holds
-- that); the concrete type stays in `resource ->> 'type'`, which is what these helpers and
-- /notification/summary serve as the type.

-- One row per resource that has send history: for the console's resource filter.
CREATE VIEW notification_send_history_resources AS
SELECT DISTINCT ON (s.resource_id)
  s.resource_id AS id,
  s.resource_kind,
  s.resource ->> 'type' AS resource_type,
  s.resource ->> 'name' AS name,
  s.resource
FROM notification_send_history_summary s
WHERE s.resource IS NOT NULL
ORDER BY s.resource_id, s.created_at DESC;

-- The key/value tag pairs of the (config) resources that have send history.
CREATE VIEW notification_send_history_resource_tags AS
SELECT DISTINCT t.key, t.value
FROM (SELECT DISTINCT resource_id FROM notification_send_history WHERE source_event LIKE 'config.%') h
JOIN config_items ci ON ci.id = h.resource_id
CROSS JOIN LATERAL jsonb_each_text(coalesce(ci.tags, '{}'::jsonb)) AS t(key, value);

-- The resource kinds and concrete types that have send history.
CREATE VIEW notification_send_history_resource_types AS
SELECT DISTINCT resource_kind, resource_type
FROM notification_send_history_resources
WHERE resource_type IS NOT NULL;

-- A resource's send history with the parents of its rows (grouped and inhibited rows point at
-- the dispatch that stood for them, which may be about another resource).
CREATE FUNCTION notification_send_history_of_resource(p_resource_id uuid)
RETURNS SETOF notification_send_history_summary
LANGUAGE sql STABLE AS $$
  SELECT s.* FROM notification_send_history_summary s
  WHERE s.resource_id = p_resource_id
     OR s.id IN (SELECT h.parent_id FROM notification_send_history h WHERE h.resource_id = p_resource_id AND h.parent_id IS NOT NULL)
  ORDER BY s.created_at DESC
$$;


-- Read models and RPC functions of the catalog and topology (data-model 5.6, 5.7).
-- Summaries the reference keeps in materialized views are computed live here.

-- Open analyses of one config as {analysis_type: count}; null when there are none.
CREATE FUNCTION config_open_analysis(p_config_id uuid) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_object_agg(analysis_type, total)
  FROM (
    SELECT coalesce(analysis_type, 'other') AS analysis_type, count(*) AS total
    FROM config_analysis
    WHERE config_id = p_config_id AND status = 'open'
    GROUP BY 1
  ) AS counts
$$;

-- configs keeps the 1.4.48 cost shape (four stored cost columns, data-model 13 item 2).
CREATE VIEW configs AS
SELECT
  ci.id, ci.scraper_id, ci.config_class, ci.external_id, ci.type, ci.name,
  ci.tags ->> 'namespace' AS namespace,
  ci.description, ci.source, ci.labels, ci.tags, ci.tags_values, ci.properties, ci.properties_values,
  ci.created_by, ci.created_at, ci.updated_at, ci.deleted_at,
  ci.cost_per_minute, ci.cost_total_1d, ci.cost_total_7d, ci.cost_total_30d,
  ci.agent_id, ci.status, ci.health, ci.ready, ci.path,
  (SELECT count(*) FROM config_changes cc
   WHERE cc.config_id = ci.id AND cc.created_at > now() - interval '7 days') AS changes,
  config_open_analysis(ci.id) AS analysis
FROM config_items ci;

CREATE VIEW config_detail AS
SELECT
  ci.*,
  lst.last_scraped_time,
  ag.name AS agent_name,
  jsonb_build_object(
    'relationships',
      (SELECT count(*) FROM (SELECT DISTINCT r.related_id, r.relation FROM config_relationships r
                             WHERE r.config_id = ci.id AND r.deleted_at IS NULL) AS outgoing)
      + (SELECT count(*) FROM (SELECT DISTINCT r.config_id, r.relation FROM config_relationships r
                               WHERE r.related_id = ci.id AND r.deleted_at IS NULL) AS incoming),
    'analysis', (SELECT count(*) FROM config_analysis a WHERE a.config_id = ci.id AND a.status = 'open'),
    'changes', (SELECT count(*) FROM config_changes cc WHERE cc.config_id = ci.id AND cc.created_at > now() - interval '7 days'),
    'playbook_runs', (SELECT count(*) FROM playbook_runs pr WHERE pr.config_id = ci.id AND pr.start_time > now() - interval '30 days'),
    'checks', (SELECT count(*) FROM check_config_relationships cr WHERE cr.config_id = ci.id AND cr.deleted_at IS NULL)
  ) AS summary,
  CASE WHEN sc.id IS NOT NULL THEN jsonb_build_object('id', sc.id, 'name', sc.name) END AS scraper
FROM config_items ci
LEFT JOIN config_items_last_scraped_time lst ON lst.config_id = ci.id
LEFT JOIN agents ag ON ag.id = ci.agent_id
LEFT JOIN config_scrapers sc ON sc.id = ci.scraper_id;

CREATE VIEW config_analysis_items AS
SELECT
  ca.*,
  ci.name, ci.deleted_at, ci.type, ci.tags, ci.labels, ci.config, ci.agent_id, ci.path,
  ci.name AS config_name, ci.type AS config_type, ci.config_class
FROM config_analysis ca
LEFT JOIN config_items ci ON ci.id = ca.config_id;

CREATE VIEW catalog_changes AS
SELECT
  cc.id, cc.config_id, ci.name, ci.deleted_at, ci.type, ci.tags, ci.config, cc.external_created_by,
  cc.created_at, cc.severity, cc.change_type, cc.source, cc.summary, cc.details, cc.diff, cc.created_by,
  cc.count, cc.first_observed, ci.agent_id, ci.path, cc.inserted_at
FROM config_changes cc
JOIN config_items ci ON ci.id = cc.config_id;

CREATE VIEW config_tags AS
SELECT DISTINCT t.key, t.value
FROM config_items ci CROSS JOIN LATERAL jsonb_object_pairs(ci.tags) AS t
WHERE ci.deleted_at IS NULL
ORDER BY t.key, t.value;

CREATE VIEW config_labels AS
SELECT DISTINCT l.key, l.value
FROM config_items ci CROSS JOIN LATERAL jsonb_object_pairs(ci.labels) AS l
WHERE ci.deleted_at IS NULL
ORDER BY l.key, l.value;

CREATE VIEW config_tags_labels_keys AS
SELECT DISTINCT key FROM (
  SELECT 'tag:' || t.key AS key FROM config_items ci CROSS JOIN LATERAL jsonb_object_pairs(ci.tags) AS t
  UNION
  SELECT 'label:' || l.key FROM config_items ci CROSS JOIN LATERAL jsonb_object_pairs(ci.labels) AS l
) AS keys
ORDER BY key;

CREATE VIEW config_types AS SELECT DISTINCT type FROM config_items ORDER BY type;
CREATE VIEW config_classes AS SELECT DISTINCT config_class FROM config_items ORDER BY config_class;
CREATE VIEW config_statuses AS SELECT DISTINCT status FROM config_items WHERE status IS NOT NULL ORDER BY status;
CREATE VIEW change_types AS SELECT DISTINCT change_type FROM config_changes ORDER BY change_type;
CREATE VIEW analyzer_types AS SELECT DISTINCT analyzer FROM config_analysis ORDER BY analyzer;
CREATE VIEW analysis_types AS SELECT DISTINCT analysis_type FROM config_analysis ORDER BY analysis_type;
CREATE VIEW config_analysis_analyzers AS
SELECT DISTINCT analyzer FROM config_analysis WHERE status = 'open' ORDER BY analyzer;

CREATE VIEW config_names AS
SELECT id, type, external_id, name FROM config_items ORDER BY name;

-- Open analyses and costs cover live items only: a deleted config should not inflate a summary.
CREATE VIEW config_summary AS
WITH items AS (
  SELECT type,
    max(created_at) AS created_at,
    max(updated_at) AS updated_at,
    count(*) FILTER (WHERE deleted_at IS NULL) AS total_configs,
    sum(cost_per_minute) FILTER (WHERE deleted_at IS NULL) AS cost_per_minute,
    sum(cost_total_1d) FILTER (WHERE deleted_at IS NULL) AS cost_total_1d,
    sum(cost_total_7d) FILTER (WHERE deleted_at IS NULL) AS cost_total_7d,
    sum(cost_total_30d) FILTER (WHERE deleted_at IS NULL) AS cost_total_30d
  FROM config_items GROUP BY type
),
open_analysis AS (
  SELECT ci.type, coalesce(ca.analysis_type, 'other') AS analysis_type, coalesce(ca.severity, 'unknown') AS severity
  FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
  WHERE ca.status = 'open' AND ci.deleted_at IS NULL
),
by_type AS (
  SELECT type, jsonb_object_agg(analysis_type, total) AS analysis
  FROM (SELECT type, analysis_type, count(*) AS total FROM open_analysis GROUP BY 1, 2) AS x GROUP BY type
),
by_severity AS (
  SELECT type, jsonb_object_agg(severity, total) AS severity
  FROM (SELECT type, severity, count(*) AS total FROM open_analysis GROUP BY 1, 2) AS x GROUP BY type
),
changes AS (
  SELECT ci.type, count(*) AS changes
  FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
  WHERE cc.created_at > now() - interval '30 days'
  GROUP BY ci.type
)
SELECT items.type, items.created_at, items.updated_at, by_type.analysis, by_severity.severity,
  changes.changes, items.total_configs,
  items.cost_per_minute::numeric(16,4) AS cost_per_minute,
  items.cost_total_1d::numeric(16,4) AS cost_total_1d,
  items.cost_total_7d::numeric(16,4) AS cost_total_7d,
  items.cost_total_30d::numeric(16,4) AS cost_total_30d
FROM items
LEFT JOIN by_type ON by_type.type = items.type
LEFT JOIN by_severity ON by_severity.type = items.type
LEFT JOIN changes ON changes.type = items.type
ORDER BY items.type;

CREATE VIEW config_class_summary AS
WITH items AS (
  SELECT config_class,
    max(created_at) AS created_at,
    max(updated_at) AS updated_at,
    count(*) AS total_configs,
    sum(cost_per_minute) AS cost_per_minute,
    sum(cost_total_1d) AS cost_total_1d,
    sum(cost_total_7d) AS cost_total_7d,
    sum(cost_total_30d) AS cost_total_30d
  FROM config_items GROUP BY config_class
),
by_type AS (
  SELECT config_class, jsonb_object_agg(analysis_type, total) AS analysis
  FROM (
    SELECT ci.config_class, coalesce(ca.analysis_type, 'other') AS analysis_type, count(*) AS total
    FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
    WHERE ca.status = 'open'
    GROUP BY 1, 2
  ) AS x GROUP BY config_class
),
changes AS (
  SELECT ci.config_class, count(*) AS changes
  FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
  WHERE cc.created_at > now() - interval '30 days'
  GROUP BY ci.config_class
)
SELECT items.config_class, items.created_at, items.updated_at, by_type.analysis, changes.changes, items.total_configs,
  items.cost_per_minute::numeric(16,4) AS cost_per_minute,
  items.cost_total_1d::numeric(16,4) AS cost_total_1d,
  items.cost_total_7d::numeric(16,4) AS cost_total_7d,
  items.cost_total_30d::numeric(16,4) AS cost_total_30d
FROM items
LEFT JOIN by_type ON by_type.config_class = items.config_class
LEFT JOIN changes ON changes.config_class = items.config_class
ORDER BY items.config_class;

CREATE VIEW config_changes_by_types AS
SELECT ci.type AS config_type, count(*) AS count
FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
WHERE cc.created_at > now() - interval '30 days'
GROUP BY ci.type;

CREATE VIEW config_analysis_by_severity AS
SELECT ci.type AS config_type, ca.severity, count(*) AS count
FROM config_analysis ca JOIN config_items ci ON ci.id = ca.config_id
WHERE ca.first_observed > now() - interval '30 days'
GROUP BY ci.type, ca.severity;

CREATE VIEW analysis_by_config AS
SELECT config_id, jsonb_object_agg(analysis_type, severities) AS analysis
FROM (
  SELECT config_id, analysis_type, jsonb_object_agg(severity, total) AS severities
  FROM (
    SELECT config_id, coalesce(analysis_type, 'other') AS analysis_type, coalesce(severity, 'unknown') AS severity, count(*) AS total
    FROM config_analysis
    WHERE status IS DISTINCT FROM 'resolved'
    GROUP BY 1, 2, 3
  ) AS counts
  GROUP BY config_id, analysis_type
) AS per_type
GROUP BY config_id;

CREATE FUNCTION severity_rank(severity text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE lower(severity)
    WHEN 'critical' THEN 1 WHEN 'blocker' THEN 2 WHEN 'high' THEN 3 WHEN 'medium' THEN 4
    WHEN 'low' THEN 5 WHEN 'info' THEN 6 ELSE 7 END
$$;

CREATE VIEW analysis_by_component AS
SELECT r.component_id, ca.config_id, ca.id, ci.name, ci.type, ca.analysis_type, ca.analyzer, ca.severity,
  ca.status, ca.summary, ca.first_observed, ca.last_observed
FROM config_component_relationships r
JOIN config_items ci ON ci.id = r.config_id AND ci.deleted_at IS NULL
JOIN config_analysis ca ON ca.config_id = ci.id AND ca.status = 'open'
WHERE r.deleted_at IS NULL
ORDER BY severity_rank(ca.severity), ci.name;

CREATE VIEW changes_by_component AS
SELECT r.component_id, cc.id, cc.config_id, ci.name, ci.type, cc.change_type, cc.severity, cc.source,
  cc.summary, cc.created_at, cc.created_by, cc.external_created_by, ci.deleted_at AS config_deleted_at
FROM config_component_relationships r
JOIN config_items ci ON ci.id = r.config_id
JOIN config_changes cc ON cc.config_id = r.config_id
WHERE r.deleted_at IS NULL
ORDER BY cc.created_at DESC;

-- ---------------------------------------------------------------------------------------------
-- Components

CREATE VIEW component_names AS
SELECT id, path, external_id, type, name, created_at, updated_at, icon, parent_id
FROM components
WHERE deleted_at IS NULL AND NOT hidden
ORDER BY name, external_id;

CREATE VIEW component_names_all AS
SELECT id, path, external_id, type, name, created_at, updated_at, icon, parent_id, deleted_at
FROM components
ORDER BY name, external_id;

CREATE VIEW component_labels AS
SELECT DISTINCT l.key, l.value
FROM components c CROSS JOIN LATERAL jsonb_object_pairs(c.labels) AS l
ORDER BY l.key, l.value;

CREATE VIEW component_labels_keys AS
SELECT DISTINCT 'label:' || l.key AS key
FROM components c CROSS JOIN LATERAL jsonb_object_pairs(c.labels) AS l
ORDER BY 1;

CREATE VIEW component_types AS
SELECT DISTINCT type FROM components WHERE type IS NOT NULL ORDER BY type;

CREATE VIEW components_with_logs AS
SELECT id, name, agent_id, icon, type
FROM components
WHERE deleted_at IS NULL AND jsonb_typeof(log_selectors) = 'array' AND jsonb_array_length(log_selectors) > 0;

CREATE VIEW incident_summary_by_component AS
SELECT component_id, jsonb_object_agg(type, severities) AS incidents
FROM (
  SELECT component_id, type, jsonb_object_agg(severity, total) AS severities
  FROM (
    SELECT e.component_id, i.type, i.severity, count(DISTINCT i.id) AS total
    FROM evidences e
    JOIN hypotheses h ON h.id = e.hypothesis_id
    JOIN incidents i ON i.id = h.incident_id
    WHERE e.component_id IS NOT NULL AND i.status NOT IN ('resolved', 'closed')
    GROUP BY 1, 2, 3
  ) AS counts
  GROUP BY component_id, type
) AS per_type
GROUP BY component_id;

-- analysis uses the same {analysis_type: {severity: count}} shape as analysis_by_config.
CREATE VIEW topology AS
SELECT
  c.*,
  (SELECT jsonb_agg(ls ->> 'name') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(c.log_selectors) = 'array' THEN c.log_selectors END) AS ls) AS logs,
  (SELECT s.checks FROM check_summary_by_component s WHERE s.component_id = c.id) AS checks,
  (SELECT array_agg(t.name ORDER BY t.name) FROM team_components tc JOIN teams t ON t.id = tc.team_id
   WHERE tc.component_id = c.id AND t.deleted_at IS NULL) AS team_names,
  (SELECT s.incidents FROM incident_summary_by_component s WHERE s.component_id = c.id) AS incidents,
  (SELECT jsonb_object_agg(analysis_type, severities) FROM (
     SELECT analysis_type, jsonb_object_agg(severity, total) AS severities FROM (
       SELECT coalesce(a.analysis_type, 'other') AS analysis_type, coalesce(a.severity, 'unknown') AS severity, count(*) AS total
       FROM config_component_relationships r JOIN config_analysis a ON a.config_id = r.config_id
       WHERE r.component_id = c.id AND r.deleted_at IS NULL AND a.status = 'open'
       GROUP BY 1, 2) AS counts
     GROUP BY analysis_type) AS per_type) AS analysis,
  (SELECT array_agg(cr.component_id) FROM component_relationships cr
   WHERE cr.relationship_id = c.id AND cr.deleted_at IS NULL) AS children,
  (SELECT array_agg(cr.relationship_id) FROM component_relationships cr
   WHERE cr.component_id = c.id AND cr.deleted_at IS NULL) AS parents
FROM components c
WHERE c.deleted_at IS NULL;

-- ---------------------------------------------------------------------------------------------
-- RPC functions

-- Edges reachable from a config item, walked per direction up to max_depth. Rows are
-- de-duplicated by (edge, depth), so cycles end at max_depth and the work stays bounded by
-- edges x depth instead of growing with the number of paths.
CREATE FUNCTION config_relationships_recursive(
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
BEGIN
  IF filter NOT IN ('incoming', 'outgoing', 'all') THEN
    RAISE EXCEPTION 'invalid type_filter %: expected incoming, outgoing or all', type_filter USING ERRCODE = '22023';
  END IF;
  IF lower(coalesce(outgoing_relation, 'both')) NOT IN ('both', 'hard') OR lower(coalesce(incoming_relation, 'both')) NOT IN ('both', 'hard') THEN
    RAISE EXCEPTION 'invalid relation filter: expected both or hard' USING ERRCODE = '22023';
  END IF;
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
    WHERE w.depth < max_depth
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

CREATE FUNCTION related_configs_recursive(
  config_id uuid,
  type_filter text DEFAULT 'outgoing',
  include_deleted_configs boolean DEFAULT false,
  max_depth integer DEFAULT 5,
  incoming_relation text DEFAULT 'both',
  outgoing_relation text DEFAULT 'both')
RETURNS TABLE (
  id uuid, name text, type text, related_ids text[], tags jsonb, changes bigint, analysis jsonb,
  cost_per_minute numeric(16,4), cost_total_1h numeric(16,4), cost_total_1d numeric(16,4), cost_total_30d numeric(16,4),
  created_at timestamptz, updated_at timestamptz, deleted_at timestamptz, agent_id uuid,
  health text, ready boolean, status text, path text)
LANGUAGE sql STABLE AS $$
  WITH edges AS (
    SELECT * FROM config_relationships_recursive(
      related_configs_recursive.config_id, related_configs_recursive.type_filter,
      related_configs_recursive.include_deleted_configs, related_configs_recursive.max_depth,
      related_configs_recursive.incoming_relation, related_configs_recursive.outgoing_relation)
  ),
  start_item AS (
    SELECT ci.id, ci.path FROM config_items ci WHERE ci.id = related_configs_recursive.config_id
  ),
  ancestors AS (
    SELECT text_to_uuid(part.value) AS id, (part.total - part.position + 1)::integer AS depth
    FROM start_item s
    CROSS JOIN LATERAL (
      SELECT p.value, p.position, count(*) OVER () AS total
      FROM unnest(string_to_array(s.path, '.')) WITH ORDINALITY AS p (value, position)
    ) AS part
    WHERE text_to_uuid(part.value) IS NOT NULL AND text_to_uuid(part.value) <> s.id
  ),
  reached AS (
    SELECT e.related_id AS id, e.depth FROM edges e
    UNION ALL SELECT a.id, a.depth FROM ancestors a
    UNION ALL SELECT s.id, 0 FROM start_item s
  ),
  items AS (
    SELECT r.id, min(r.depth) AS depth FROM reached r GROUP BY r.id
  )
  SELECT
    c.id, c.name, c.type,
    (SELECT array_agg(DISTINCT e.related_id::text) FROM edges e WHERE e.id = c.id),
    c.tags, c.changes, c.analysis,
    c.cost_per_minute,
    -- No stored hourly figure exists; an hour at the current per-minute rate is the closest estimate.
    (c.cost_per_minute * 60)::numeric(16,4),
    c.cost_total_1d, c.cost_total_30d,
    c.created_at, c.updated_at, c.deleted_at, c.agent_id, c.health, c.ready, c.status, c.path
  FROM items i
  JOIN configs c ON c.id = i.id
  WHERE related_configs_recursive.include_deleted_configs OR c.deleted_at IS NULL OR c.id = related_configs_recursive.config_id
  ORDER BY i.depth, c.name
$$;

-- Direct neighbours only (depth 1), without the item itself.
CREATE FUNCTION related_configs(config_id uuid, type_filter text DEFAULT 'all', include_deleted_configs boolean DEFAULT false)
RETURNS TABLE (
  id uuid, name text, type text, related_ids text[], tags jsonb, changes bigint, analysis jsonb,
  cost_per_minute numeric(16,4), cost_total_1h numeric(16,4), cost_total_1d numeric(16,4), cost_total_30d numeric(16,4),
  created_at timestamptz, updated_at timestamptz, deleted_at timestamptz, agent_id uuid,
  health text, ready boolean, status text, path text)
LANGUAGE sql STABLE AS $$
  SELECT r.*
  FROM related_configs_recursive(related_configs.config_id, related_configs.type_filter,
                                 related_configs.include_deleted_configs, 1) AS r
  WHERE r.id <> related_configs.config_id
$$;

CREATE FUNCTION config_type_rank(config_type text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN config_type IN ('AWS::::Account', 'AWS::Account', 'Kubernetes::Cluster') THEN 1
    WHEN config_type IN ('AWS::Region') THEN 2
    WHEN config_type IN ('AWS::AvailabilityZone', 'AWS::AvailabilityZoneID', 'Kubernetes::Node', 'Kubernetes::Namespace',
                         'Kubernetes::ClusterRole', 'Kubernetes::ClusterRoleBinding', 'Kubernetes::RoleBinding',
                         'Kubernetes::StorageClass', 'Kubernetes::IngressClass', 'Kubernetes::PersistentVolume')
         OR config_type LIKE 'AWS::IAM::%' THEN 3
    WHEN config_type IN ('AWS::EC2::VPC', 'AWS::S3::Bucket', 'Kubernetes::HelmRelease', 'Kubernetes::Kustomization') THEN 4
    WHEN config_type IN ('AWS::EC2::Subnet', 'Kubernetes::Deployment', 'Kubernetes::StatefulSet', 'Kubernetes::DaemonSet',
                         'Kubernetes::Job', 'Kubernetes::CronJob', 'Kubernetes::Ingress') THEN 5
    WHEN config_type IN ('Kubernetes::Service', 'Kubernetes::Endpoints', 'Kubernetes::ReplicaSet',
                         'Kubernetes::PersistentVolumeClaim') THEN 6
    ELSE 99 END
$$;

CREATE FUNCTION get_parents_by_location(config_id uuid, alias_prefix text DEFAULT NULL, include_deleted boolean DEFAULT false)
RETURNS TABLE (id uuid, name text, type text)
LANGUAGE sql STABLE AS $$
  SELECT p.id, p.name, p.type
  FROM (
    SELECT DISTINCT ci.id, ci.name, ci.type
    FROM config_locations l
    JOIN config_items ci ON ci.external_id @> ARRAY[l.location]
    WHERE l.id = get_parents_by_location.config_id
      AND (get_parents_by_location.alias_prefix IS NULL OR starts_with(l.location, get_parents_by_location.alias_prefix))
      AND (get_parents_by_location.include_deleted OR ci.deleted_at IS NULL)
      AND ci.id <> get_parents_by_location.config_id
  ) AS p
  ORDER BY config_type_rank(p.type), p.name
$$;

CREATE FUNCTION get_children_by_location(config_id uuid, alias_prefix text DEFAULT NULL, include_deleted boolean DEFAULT false)
RETURNS TABLE (id uuid, name text, type text)
LANGUAGE sql STABLE AS $$
  SELECT c.id, c.name, c.type
  FROM (
    SELECT DISTINCT ci.id, ci.name, ci.type
    FROM config_items self
    CROSS JOIN LATERAL unnest(self.external_id) AS alias (value)
    JOIN config_locations l ON starts_with(l.location, alias.value)
    JOIN config_items ci ON ci.id = l.id
    WHERE self.id = get_children_by_location.config_id
      AND (get_children_by_location.alias_prefix IS NULL OR starts_with(l.location, get_children_by_location.alias_prefix))
      AND (get_children_by_location.include_deleted OR ci.deleted_at IS NULL)
      AND ci.id <> get_children_by_location.config_id
  ) AS c
  ORDER BY config_type_rank(c.type), c.name
$$;

CREATE FUNCTION lookup_analysis_by_component(id text) RETURNS SETOF config_analysis
LANGUAGE sql STABLE AS $$
  SELECT ca.*
  FROM config_component_relationships r
  JOIN config_analysis ca ON ca.config_id = r.config_id
  WHERE r.component_id = text_to_uuid(lookup_analysis_by_component.id)
$$;

CREATE FUNCTION lookup_configs_by_component(id text)
RETURNS TABLE (config_id uuid, name text, type text, icon text, role text, deleted_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT ci.id, ci.name, ci.config_class, ci.icon, 'left'::text, ci.deleted_at
  FROM config_component_relationships r
  JOIN config_items ci ON ci.id = r.config_id
  WHERE r.component_id = text_to_uuid(lookup_configs_by_component.id) AND r.deleted_at IS NULL
$$;

CREATE FUNCTION lookup_changes_by_component(id text) RETURNS SETOF config_changes
LANGUAGE sql STABLE AS $$
  SELECT cc.*
  FROM config_component_relationships r
  JOIN config_changes cc ON cc.config_id = r.config_id
  WHERE r.component_id = text_to_uuid(lookup_changes_by_component.id) AND r.deleted_at IS NULL
  ORDER BY cc.created_at DESC
$$;

CREATE FUNCTION lookup_components_by_config(id text)
RETURNS TABLE (component_id uuid, name text, type text, icon text, role text)
LANGUAGE sql STABLE AS $$
  SELECT c.id, c.name, c.type, c.icon, 'right'::text
  FROM config_component_relationships r
  JOIN components c ON c.id = r.component_id
  WHERE r.config_id = text_to_uuid(lookup_components_by_config.id) AND r.deleted_at IS NULL AND c.deleted_at IS NULL
$$;

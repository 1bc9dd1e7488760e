-- Read models for the health pages (data-model 4.6 - 4.9) and shared helpers for later views.

-- Text ids (job_history.resource_id, permission subjects) joined to uuid keys without a
-- cast error on non-uuid text, and without casting the key side (which would skip its index).
CREATE FUNCTION text_to_uuid(value text) RETURNS uuid
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value ~* '^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$' THEN value::uuid END
$$;

-- Key/value pairs of a jsonb object; anything that is not an object yields no rows instead of an error.
CREATE FUNCTION jsonb_object_pairs(obj jsonb) RETURNS TABLE (key text, value text)
LANGUAGE sql IMMUTABLE AS $$
  SELECT e.key, e.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(obj) = 'object' THEN obj END) AS e
$$;

-- The standard job columns of the *_with_status views (data-model 10.3): the latest run of a
-- resource plus the start of its latest failed run.
CREATE FUNCTION latest_job(p_resource_type text, p_resource_id text)
RETURNS TABLE (
  job_name text, job_success_count integer, job_error_count integer, job_details jsonb, job_hostname text,
  job_duration_millis integer, job_resource_type text, job_status text, job_time_start timestamptz,
  job_time_end timestamptz, job_created_at timestamptz, job_last_failed timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT j.name, j.success_count, j.error_count, j.details, j.hostname, j.duration_millis, j.resource_type,
         j.status, j.time_start, j.time_end, j.created_at,
         (SELECT f.time_start FROM job_history f
          WHERE f.resource_type = p_resource_type AND f.resource_id = p_resource_id AND f.status = 'FAILED'
          ORDER BY f.created_at DESC LIMIT 1)
  FROM (SELECT 1) AS one
  LEFT JOIN LATERAL (
    SELECT * FROM job_history h
    WHERE h.resource_type = p_resource_type AND h.resource_id = p_resource_id
    ORDER BY h.created_at DESC LIMIT 1) AS j ON true
$$;

-- ---------------------------------------------------------------------------------------------
-- check_summary: computed live, one index range scan of the last hour per check; a check with
-- no run in that hour falls back to its single most recent run (counted as one pass or fail).

CREATE VIEW check_summary AS
SELECT
  c.id,
  c.canary_id,
  c.agent_id,
  ca.namespace AS canary_namespace,
  ca.name AS canary_name,
  coalesce(CASE WHEN jsonb_typeof(ca.labels) = 'object' THEN ca.labels END, '{}'::jsonb)
    || coalesce(CASE WHEN jsonb_typeof(c.labels) = 'object' THEN c.labels END, '{}'::jsonb) AS labels,
  c.type,
  c.icon,
  c.name,
  c.status,
  c.description,
  c.namespace,
  c.severity,
  c.owner,
  c.last_transition_time,
  c.created_at,
  c.updated_at,
  c.deleted_at,
  c.silenced_at,
  jsonb_build_object(
    'passed', CASE WHEN h.total > 0 THEN h.passed WHEN f.status THEN 1 ELSE 0 END,
    'failed', CASE WHEN h.total > 0 THEN h.failed WHEN f.status = false THEN 1 ELSE 0 END,
    'last_pass', CASE WHEN h.total > 0 THEN h.last_pass WHEN f.status THEN f.time END,
    'last_fail', CASE WHEN h.total > 0 THEN h.last_fail WHEN f.status = false THEN f.time END) AS uptime,
  jsonb_build_object(
    'p99', CASE WHEN h.total > 0 THEN h.p99 ELSE f.duration END,
    'p95', CASE WHEN h.total > 0 THEN h.p95 ELSE f.duration END,
    'p50', CASE WHEN h.total > 0 THEN h.p50 ELSE f.duration END,
    'avg', CASE WHEN h.total > 0 THEN h.avg ELSE f.duration END) AS latency,
  cu.last_runtime
FROM checks c
LEFT JOIN canaries ca ON ca.id = c.canary_id
LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
CROSS JOIN LATERAL (
  SELECT
    count(*) AS total,
    count(*) FILTER (WHERE s.status) AS passed,
    count(*) FILTER (WHERE NOT s.status) AS failed,
    max(s.time) FILTER (WHERE s.status) AS last_pass,
    max(s.time) FILTER (WHERE NOT s.status) AS last_fail,
    percentile_disc(0.99) WITHIN GROUP (ORDER BY s.duration) AS p99,
    percentile_disc(0.95) WITHIN GROUP (ORDER BY s.duration) AS p95,
    percentile_disc(0.50) WITHIN GROUP (ORDER BY s.duration) AS p50,
    -- Whole milliseconds: sub-millisecond precision is noise for a latency badge.
    round(avg(s.duration))::integer AS avg
  FROM check_statuses s
  WHERE s.check_id = c.id AND s.time > now() - interval '1 hour'
) AS h
LEFT JOIN LATERAL (
  SELECT s.status, s.time, s.duration
  FROM check_statuses s
  WHERE h.total = 0 AND s.check_id = c.id
  ORDER BY s.time DESC
  LIMIT 1
) AS f ON true;

CREATE VIEW check_names AS
SELECT id, canary_id, type, name, status
FROM checks
WHERE deleted_at IS NULL AND silenced_at IS NULL
ORDER BY name;

CREATE VIEW check_labels AS
SELECT DISTINCT l.key, l.value
FROM checks c CROSS JOIN LATERAL jsonb_object_pairs(c.labels) AS l
WHERE c.deleted_at IS NULL
ORDER BY l.key, l.value;

CREATE VIEW checks_labels_keys AS
SELECT DISTINCT 'label:' || l.key AS key
FROM checks c CROSS JOIN LATERAL jsonb_object_pairs(c.labels) AS l
WHERE c.deleted_at IS NULL
ORDER BY 1;

CREATE VIEW checks_by_component AS
SELECT r.component_id, c.id, c.type, c.name, c.severity, c.status
FROM check_component_relationships r
JOIN checks c ON c.id = r.check_id
WHERE r.deleted_at IS NULL AND c.deleted_at IS NULL;

CREATE VIEW check_summary_by_component AS
SELECT component_id, jsonb_object_agg(status, total) AS checks
FROM (
  SELECT component_id, coalesce(status, 'unknown') AS status, count(*) AS total
  FROM checks_by_component GROUP BY component_id, coalesce(status, 'unknown')
) AS counts
GROUP BY component_id;

CREATE VIEW checks_by_config AS
SELECT r.config_id, c.id, c.type, c.name, c.severity, c.status, c.icon, cu.last_runtime
FROM check_config_relationships r
JOIN checks c ON c.id = r.check_id
LEFT JOIN checks_unlogged cu ON cu.check_id = c.id
WHERE r.deleted_at IS NULL AND c.deleted_at IS NULL;

CREATE VIEW check_summary_by_config AS
SELECT config_id, jsonb_object_agg(status, total) AS checks
FROM (
  SELECT config_id, coalesce(status, 'unknown') AS status, count(*) AS total
  FROM checks_by_config GROUP BY config_id, coalesce(status, 'unknown')
) AS counts
GROUP BY config_id;

CREATE VIEW check_summary_for_config AS
SELECT r.config_id, s.*
FROM check_config_relationships r
JOIN check_summary s ON s.id = r.check_id
WHERE r.deleted_at IS NULL;

CREATE VIEW check_statuses_5m AS
SELECT
  check_id,
  date_bin('5 minutes', time, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS created_at,
  count(*) AS total_checks,
  count(*) FILTER (WHERE status) AS passed,
  count(*) FILTER (WHERE NOT status) AS failed,
  sum(duration) AS total_duration
FROM check_statuses
WHERE time > now() - interval '1 day'
GROUP BY check_id, 2;

CREATE VIEW checks_status_artifacts AS
SELECT s.*,
  (SELECT jsonb_agg(jsonb_build_object('name', a.filename, 'size', a.size, 'id', a.id))
   FROM artifacts a WHERE a.check_id = s.check_id AND a.check_time = s.time AND a.deleted_at IS NULL) AS artifacts
FROM check_statuses s;

CREATE VIEW canaries_with_status AS
SELECT
  ca.id, ca.name, ca.namespace,
  ca.spec ->> 'interval' AS interval,
  ca.spec ->> 'schedule' AS schedule,
  ca.labels, ca.source, ca.agent_id, ca.created_by, ca.created_at, ca.updated_at, ca.deleted_at,
  (SELECT max(cu.last_runtime) FROM checks_unlogged cu WHERE cu.canary_id = ca.id) AS last_runtime,
  j.job_name, j.job_success_count, j.job_error_count, j.job_details, j.job_hostname, j.job_duration_millis,
  j.job_resource_type, j.job_status, j.job_time_start, j.job_time_end, j.job_created_at, j.job_last_failed,
  jsonb_build_object('id', ag.id, 'name', ag.name) AS agent
FROM canaries ca
LEFT JOIN agents ag ON ag.id = ca.agent_id
CROSS JOIN LATERAL latest_job('canary', ca.id::text) AS j
WHERE ca.deleted_at IS NULL;

-- Not in the reference schema; the client lists live canaries from it (data-model 4.9).
CREATE VIEW canary_names AS
SELECT id, name, namespace
FROM canaries
WHERE deleted_at IS NULL
ORDER BY name;

CREATE FUNCTION lookup_components_by_check(id text) RETURNS SETOF components
LANGUAGE sql STABLE AS $$
  SELECT c.*
  FROM check_component_relationships r
  JOIN components c ON c.id = r.component_id
  WHERE r.check_id = text_to_uuid(lookup_components_by_check.id)
    AND r.deleted_at IS NULL AND c.deleted_at IS NULL
$$;

CREATE FUNCTION check_summary_for_component(id uuid) RETURNS SETOF check_summary
LANGUAGE sql STABLE AS $$
  SELECT s.*
  FROM check_component_relationships r
  JOIN check_summary s ON s.id = r.check_id
  WHERE r.component_id = check_summary_for_component.id AND r.deleted_at IS NULL
$$;

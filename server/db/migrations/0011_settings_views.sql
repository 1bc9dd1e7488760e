-- Read models of RBAC (9.6, 9.7), agents, jobs, integrations, the event queue, connections
-- (section 10) and custom views (11.2).

CREATE VIEW permissions_summary AS
SELECT
  pm.id, pm.name, pm.namespace, pm.description, pm.error, pm.source, pm.action, pm.object, pm.object_selector,
  pm.deny, pm.subject, pm.subject_type, pm.created_at, pm.updated_at, pm.deleted_at, pm.created_by, pm.updated_by,
  pm.until, pm.tags, pm.agents,
  -- The 1.4.48 client filters on the raw FK columns (data-model 13 item 7).
  pm.component_id, pm.config_id, pm.canary_id, pm.playbook_id, pm.connection_id, pm.person_id, pm.team_id, pm.notification_id,
  CASE WHEN pm.subject_type = 'person' THEN
    (SELECT jsonb_build_object('id', p.id, 'name', p.name, 'email', p.email) FROM people p
     WHERE p.id = text_to_uuid(pm.subject) AND p.deleted_at IS NULL) END AS person,
  CASE WHEN pm.subject_type = 'team' THEN
    (SELECT jsonb_build_object('id', t.id, 'namespace', t.source, 'name', t.name) FROM teams t
     WHERE t.id = text_to_uuid(pm.subject) AND t.deleted_at IS NULL) END AS team,
  CASE WHEN pm.subject_type = 'group' THEN
    (SELECT jsonb_build_object('id', g.id, 'namespace', g.namespace, 'name', g.name) FROM permission_groups g
     WHERE g.name = pm.subject AND g.deleted_at IS NULL LIMIT 1) END AS "group",
  CASE WHEN pm.subject_type = 'canary' THEN
    (SELECT jsonb_build_object('id', c.id, 'namespace', c.namespace, 'name', c.name) FROM canaries c
     WHERE c.id = text_to_uuid(pm.subject) AND c.deleted_at IS NULL) END AS canary,
  CASE WHEN pm.subject_type = 'notification' THEN
    (SELECT jsonb_build_object('id', n.id, 'namespace', n.namespace, 'name', n.name) FROM notifications n
     WHERE n.id = text_to_uuid(pm.subject) AND n.deleted_at IS NULL) END AS notification,
  CASE WHEN pm.subject_type = 'playbook' THEN
    (SELECT jsonb_build_object('id', pb.id, 'namespace', pb.namespace, 'name', pb.name) FROM playbooks pb
     WHERE pb.id = text_to_uuid(pm.subject) AND pb.deleted_at IS NULL) END AS playbook,
  CASE WHEN pm.subject_type = 'scraper' THEN
    (SELECT jsonb_build_object('id', s.id, 'namespace', s.namespace, 'name', s.name) FROM config_scrapers s
     WHERE s.id = text_to_uuid(pm.subject) AND s.deleted_at IS NULL) END AS scraper,
  CASE WHEN pm.subject_type = 'topology' THEN
    (SELECT jsonb_build_object('id', tp.id, 'namespace', tp.namespace, 'name', tp.name) FROM topologies tp
     WHERE tp.id = text_to_uuid(pm.subject) AND tp.deleted_at IS NULL) END AS topology,
  (SELECT jsonb_build_object('id', c.id, 'icon', coalesce(c.icon, c.type), 'name', c.name) FROM components c
   WHERE c.id = pm.component_id AND c.deleted_at IS NULL) AS component_object,
  (SELECT jsonb_build_object('id', ci.id, 'icon', ci.icon, 'type', ci.type, 'name', ci.name) FROM config_items ci
   WHERE ci.id = pm.config_id AND ci.deleted_at IS NULL) AS config_object,
  (SELECT jsonb_build_object('id', c.id, 'name', c.name) FROM canaries c
   WHERE c.id = pm.canary_id AND c.deleted_at IS NULL) AS canary_object,
  (SELECT jsonb_build_object('id', pb.id, 'icon', pb.icon, 'name', coalesce(nullif(pb.spec ->> 'title', ''), pb.name)) FROM playbooks pb
   WHERE pb.id = pm.playbook_id AND pb.deleted_at IS NULL) AS playbook_object,
  (SELECT jsonb_build_object('id', cn.id, 'type', cn.type, 'name', cn.name) FROM connections cn
   WHERE cn.id = pm.connection_id AND cn.deleted_at IS NULL) AS connection_object
FROM permissions pm
WHERE pm.deleted_at IS NULL;

-- p_field is the selector kind in object_selector (configs, playbooks, components, ...).
CREATE FUNCTION permissions_for_obj_selector(p_field text, p_name text, p_namespace text)
RETURNS SETOF permissions_summary
LANGUAGE sql STABLE AS $$
  SELECT ps.*
  FROM permissions_summary ps
  WHERE EXISTS (
    SELECT 1
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(ps.object_selector -> p_field) = 'array' THEN ps.object_selector -> p_field END) AS sel
    WHERE sel ->> 'name' = p_name
      AND (coalesce(sel ->> 'namespace', '') = '' OR sel ->> 'namespace' = p_namespace))
$$;

CREATE VIEW permissions_group_summary AS
SELECT * FROM permissions_summary WHERE subject_type = 'group';

CREATE VIEW people_roles AS
SELECT p.id, p.name, p.email,
  ARRAY(SELECT DISTINCT r.v1::text FROM casbin_rule r WHERE r.ptype = 'g' AND r.v0 = p.id::text ORDER BY 1) AS roles
FROM people p
WHERE p.deleted_at IS NULL AND p.email IS NOT NULL AND p.email <> '';

-- Fixed role rows use type 'role'; the reference does not fix a value for them.
CREATE VIEW permission_subjects AS
SELECT t.id::text AS id, t.name, 'team'::text AS type, NULL::text AS email, NULL::text AS owner, t.icon
FROM teams t WHERE t.deleted_at IS NULL
UNION ALL
SELECT g.id::text, g.name, 'permission_subject_group', NULL, NULL, NULL
FROM permission_groups g WHERE g.deleted_at IS NULL
UNION ALL
SELECT p.id::text, p.name, 'access_token_person', p.email,
  (SELECT o.name FROM access_tokens at JOIN people o ON o.id = at.created_by WHERE at.person_id = p.id ORDER BY at.created_at LIMIT 1),
  p.avatar
FROM people p WHERE p.deleted_at IS NULL AND p.type = 'access_token'
UNION ALL
SELECT p.id::text, p.name, 'person', p.email, NULL, p.avatar
FROM people p WHERE p.deleted_at IS NULL AND p.type IS NULL
UNION ALL
SELECT pb.id::text, coalesce(nullif(pb.title, ''), pb.name), 'playbook', NULL, NULL, pb.icon
FROM playbooks pb WHERE pb.deleted_at IS NULL
UNION ALL
SELECT role_name, role_name, 'role', NULL, NULL, NULL
FROM unnest(ARRAY['everyone', 'editor', 'viewer', 'guest']) AS role_name;

-- ---------------------------------------------------------------------------------------------
-- Agents and jobs

CREATE VIEW agents_summary AS
SELECT
  a.*,
  (SELECT nullif(count(*), 0) FROM config_items ci WHERE ci.agent_id = a.id) AS config_count,
  (SELECT nullif(count(*), 0) FROM config_scrapers s WHERE s.agent_id = a.id AND s.deleted_at IS NULL) AS config_scrapper_count,
  (SELECT nullif(count(*), 0) FROM checks c WHERE c.agent_id = a.id AND c.deleted_at IS NULL) AS checks_count,
  (SELECT nullif(count(*), 0) FROM playbook_runs r WHERE r.agent_id = a.id) AS playbook_runs_count,
  CASE WHEN a.last_seen IS NULL THEN 'unknown'
       WHEN a.last_seen > now() - interval '61 seconds' THEN 'healthy' ELSE 'unhealthy' END AS health,
  CASE WHEN a.last_seen IS NULL THEN 'unknown'
       WHEN a.last_seen > now() - interval '61 seconds' THEN 'online' ELSE 'offline' END AS status
FROM agents a
WHERE a.deleted_at IS NULL;

-- Components are recorded as resource_type 'components' (data-model 13 item 6); the singular
-- spelling is accepted too so either writer resolves a name.
CREATE VIEW job_histories AS
SELECT
  j.*,
  coalesce(
    CASE j.resource_type
      WHEN 'components' THEN (SELECT c.name FROM components c WHERE c.id = text_to_uuid(j.resource_id))
      WHEN 'component' THEN (SELECT c.name FROM components c WHERE c.id = text_to_uuid(j.resource_id))
      WHEN 'config_scraper' THEN (SELECT s.name FROM config_scrapers s WHERE s.id = text_to_uuid(j.resource_id))
      WHEN 'topology' THEN (SELECT t.name FROM topologies t WHERE t.id = text_to_uuid(j.resource_id))
      WHEN 'canary' THEN (SELECT c.name FROM canaries c WHERE c.id = text_to_uuid(j.resource_id))
    END,
    j.resource_id) AS resource_name,
  (SELECT jsonb_build_object('id', a.id, 'name', a.name) FROM agents a WHERE a.id = j.agent_id) AS agent
FROM job_history j;

CREATE VIEW job_history_names AS
SELECT DISTINCT name FROM job_history WHERE name IS NOT NULL ORDER BY name;

CREATE VIEW job_history_summary AS
SELECT
  name,
  count(*) AS total,
  count(*) FILTER (WHERE status = 'RUNNING') AS running,
  count(*) FILTER (WHERE status = 'SUCCESS') AS success,
  count(*) FILTER (WHERE status = 'WARNING') AS warning,
  count(*) FILTER (WHERE status = 'FAILED') AS failed,
  count(*) FILTER (WHERE status = 'STALE') AS stale,
  count(*) FILTER (WHERE status = 'SKIPPED') AS skipped,
  max(time_start) AS last_run_at,
  round(avg(duration_millis), 2) AS average_duration
FROM job_history
GROUP BY name;

CREATE VIEW job_history_latest_status AS
SELECT * FROM (
  SELECT j.*, row_number() OVER (PARTITION BY j.resource_id, j.resource_type, j.name ORDER BY j.created_at DESC) AS rn
  FROM job_history j
) AS ranked
WHERE rn = 1;

CREATE VIEW topologies_with_status AS
SELECT t.*,
  j.job_name, j.job_success_count, j.job_error_count, j.job_details, j.job_hostname, j.job_duration_millis,
  j.job_resource_type, j.job_status, j.job_time_start, j.job_time_end, j.job_created_at, j.job_last_failed,
  jsonb_build_object('id', ag.id, 'name', ag.name) AS agent
FROM topologies t
LEFT JOIN agents ag ON ag.id = t.agent_id
CROSS JOIN LATERAL latest_job('topology', t.id::text) AS j
WHERE t.deleted_at IS NULL;

CREATE VIEW config_scrapers_with_status AS
SELECT s.*,
  j.job_name, j.job_success_count, j.job_error_count, j.job_details, j.job_hostname, j.job_duration_millis,
  j.job_resource_type, j.job_status, j.job_time_start, j.job_time_end, j.job_created_at, j.job_last_failed,
  jsonb_build_object('id', ag.id, 'name', ag.name) AS agent
FROM config_scrapers s
LEFT JOIN agents ag ON ag.id = s.agent_id
CROSS JOIN LATERAL latest_job('config_scraper', s.id::text) AS j
WHERE s.deleted_at IS NULL;

CREATE VIEW teams_with_status AS
SELECT t.*,
  j.job_name, j.job_success_count, j.job_error_count, j.job_details, j.job_hostname, j.job_duration_millis,
  j.job_resource_type, j.job_status, j.job_time_start, j.job_time_end, j.job_created_at, j.job_last_failed
FROM teams t
CROSS JOIN LATERAL latest_job('team', t.id::text) AS j
WHERE t.deleted_at IS NULL;

CREATE VIEW integrations_with_status AS
SELECT i.*, p.name AS creator_name, p.avatar AS creator_avatar, p.title AS creator_title, p.email AS creator_email
FROM (
  SELECT s.id, s.name, coalesce(s.description, '') AS description, 'scrapers'::text AS integration_type, s.source,
    s.agent_id, s.created_at, s.updated_at, s.deleted_at, s.created_by,
    s.job_name, s.job_success_count, s.job_error_count, s.job_details, s.job_hostname, s.job_duration_millis,
    s.job_resource_type, s.job_status, s.job_time_start, s.job_time_end, s.job_created_at, s.job_last_failed, s.agent
  FROM config_scrapers_with_status s
  UNION ALL
  SELECT t.id, t.name, '', 'topologies', t.source, t.agent_id, t.created_at, t.updated_at, t.deleted_at, t.created_by,
    t.job_name, t.job_success_count, t.job_error_count, t.job_details, t.job_hostname, t.job_duration_millis,
    t.job_resource_type, t.job_status, t.job_time_start, t.job_time_end, t.job_created_at, t.job_last_failed, t.agent
  FROM topologies_with_status t
  UNION ALL
  -- Logging backends have no jobs; like the reference this branch keeps deleted rows.
  SELECT l.id, l.name, '', 'logging_backends', l.source, l.agent_id, l.created_at, l.updated_at, l.deleted_at, l.created_by,
    '', 0, 0, NULL::jsonb, '', 0, '', '', NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::timestamptz, NULL::jsonb
  FROM logging_backends l
) AS i
LEFT JOIN people p ON p.id = i.created_by;

CREATE VIEW event_queue_summary AS
SELECT
  name,
  event_id,
  count(*) AS pending,
  count(*) FILTER (WHERE error IS NOT NULL) AS failed,
  round(avg(attempts), 2) AS average_attempts,
  min(created_at) FILTER (WHERE error IS NOT NULL) AS first_failure,
  max(last_attempt) AS last_failure,
  mode() WITHIN GROUP (ORDER BY error) FILTER (WHERE error IS NOT NULL) AS most_common_error
FROM event_queue
GROUP BY name, event_id;

CREATE VIEW failed_events AS
SELECT
  name,
  count(DISTINCT error) AS unique_errors,
  round(avg(attempts), 2) AS average_attempts,
  count(*) AS total_failed_events,
  mode() WITHIN GROUP (ORDER BY error) AS most_common_error
FROM event_queue
WHERE error IS NOT NULL AND created_at > now() - interval '7 days'
GROUP BY name;

-- ---------------------------------------------------------------------------------------------
-- Connections

CREATE FUNCTION connection_category(url text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN lower(split_part(url, '://', 1)) IN (
    'bark', 'discord', 'smtp', 'gotify', 'googlechat', 'ifttt', 'join', 'mattermost', 'matrix', 'ntfy', 'opsgenie',
    'pushbullet', 'pushover', 'rocketchat', 'slack', 'teams', 'telegram', 'zulip') AND url LIKE '%://%'
    THEN 'notification' ELSE '' END
$$;

-- Secrets are shown as '***' unless they are empty or a reference to where the secret lives.
CREATE FUNCTION mask_secret(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN value IS NULL OR value = '' THEN value
    WHEN value LIKE 'secret://%' OR value LIKE 'configmap://%' OR value LIKE 'helm://%' OR value LIKE 'serviceaccount://%' THEN value
    ELSE '***' END
$$;

CREATE VIEW connections_list AS
SELECT id, name, namespace, type, connection_category(url) AS category, created_by, created_at, updated_at
FROM connections
WHERE deleted_at IS NULL;

-- url is included: the edit form needs it, and credentials in it are $(username)/$(password) references.
CREATE VIEW connection_details AS
SELECT id, name, namespace, type, connection_category(url) AS category, created_by, created_at, updated_at,
  source, properties, insecure_tls, url,
  mask_secret(username) AS username, mask_secret(password) AS password, mask_secret(certificate) AS certificate
FROM connections
WHERE deleted_at IS NULL;

-- ---------------------------------------------------------------------------------------------
-- Custom views

CREATE VIEW views_summary AS
SELECT id, namespace, name,
  spec -> 'display' ->> 'title' AS title,
  spec -> 'display' ->> 'icon' AS icon,
  CASE WHEN jsonb_typeof(spec -> 'display' -> 'ordinal') = 'number' THEN (spec -> 'display' ->> 'ordinal')::numeric::integer END AS ordinal,
  CASE WHEN jsonb_typeof(spec -> 'display' -> 'sidebar') = 'boolean' THEN (spec -> 'display' ->> 'sidebar')::boolean END AS sidebar
FROM views
WHERE deleted_at IS NULL;

-- Read models of incidents (6.7), playbooks (7.4) and notifications (8.5).

CREATE VIEW incident_summary AS
SELECT
  i.id, i.incident_id, i.title, i.severity, i.type, i.status, i.created_at, i.updated_at,
  -- An unset commander is an object of nulls, as the reference returns it.
  jsonb_build_object('id', cmd.id, 'avatar', cmd.avatar, 'name', cmd.name) AS commander,
  (SELECT jsonb_agg(r.ref ORDER BY r.ref ->> 'id')
   FROM (
     SELECT DISTINCT jsonb_build_object('id', p.id, 'avatar', p.avatar, 'name', p.name) AS ref
     FROM responders rs JOIN people p ON p.id = rs.person_id
     WHERE rs.incident_id = i.id
     UNION
     SELECT DISTINCT jsonb_build_object('id', t.id, 'avatar', t.icon, 'name', t.name)
     FROM responders rs JOIN teams t ON t.id = rs.team_id
     WHERE rs.incident_id = i.id
   ) AS r) AS responders,
  -- De-duplicated per incident (the reference de-duplicates across all incidents, data-model 13 item 11).
  (SELECT jsonb_agg(c.ref ORDER BY c.ref ->> 'id')
   FROM (
     SELECT DISTINCT jsonb_build_object('id', p.id, 'avatar', p.avatar, 'name', p.name) AS ref
     FROM comments cm JOIN people p ON p.id = cm.created_by
     WHERE cm.incident_id = i.id
   ) AS c) AS commenters
FROM incidents i
LEFT JOIN people cmd ON cmd.id = i.commander_id;

CREATE VIEW incidents_by_component AS
SELECT DISTINCT i.title, i.id, i.created_at, i.type, i.status, i.severity, e.component_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
JOIN incidents i ON i.id = h.incident_id
WHERE e.component_id IS NOT NULL;

CREATE VIEW incidents_by_config AS
SELECT DISTINCT i.title, i.id, i.created_at, i.type, i.status, i.severity, e.config_id
FROM evidences e
JOIN hypotheses h ON h.id = e.hypothesis_id
JOIN incidents i ON i.id = h.incident_id
WHERE e.config_id IS NOT NULL;

CREATE FUNCTION lookup_component_incidents(component_id text) RETURNS SETOF uuid
LANGUAGE sql STABLE AS $$
  SELECT DISTINCT h.incident_id
  FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id
  WHERE e.component_id = text_to_uuid(lookup_component_incidents.component_id)
$$;

-- ---------------------------------------------------------------------------------------------
-- Playbooks

CREATE VIEW playbook_names AS
SELECT id, title, name, namespace,
  spec ->> 'description' AS description,
  spec ->> 'category' AS category,
  spec ->> 'icon' AS icon
FROM playbooks
WHERE deleted_at IS NULL
ORDER BY name;

CREATE VIEW playbooks_for_agent AS
SELECT ag.name AS agent_name, ag.person_id, ag.id AS agent_id, jsonb_agg(DISTINCT p.id) AS playbook_ids
FROM playbooks p
CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(p.spec -> 'runsOn') = 'array' THEN p.spec -> 'runsOn' END) AS runs_on (agent_name)
JOIN agents ag ON ag.name = runs_on.agent_name AND ag.deleted_at IS NULL
WHERE p.deleted_at IS NULL
GROUP BY ag.name, ag.person_id, ag.id;

CREATE FUNCTION get_playbook_run_actions(run_id uuid)
RETURNS TABLE (
  id uuid, name text, playbook_run_id uuid, status text, scheduled_time timestamptz, start_time timestamptz,
  end_time timestamptz, result jsonb, agent_id uuid, retry_count integer, agent jsonb, artifacts jsonb)
LANGUAGE sql STABLE AS $$
  SELECT a.id, a.name, a.playbook_run_id, a.status, a.scheduled_time, a.start_time, a.end_time, a.result,
    coalesce(a.agent_id, r.agent_id), a.retry_count,
    (SELECT jsonb_build_object('id', ag.id, 'name', ag.name) FROM agents ag WHERE ag.id = coalesce(a.agent_id, r.agent_id)),
    (SELECT jsonb_agg(to_jsonb(art) ORDER BY art.created_at) FROM artifacts art WHERE art.playbook_run_action_id = a.id)
  FROM playbook_run_actions a
  JOIN playbook_runs r ON r.id = a.playbook_run_id
  WHERE r.id = get_playbook_run_actions.run_id OR r.parent_id = get_playbook_run_actions.run_id
  ORDER BY a.start_time NULLS LAST, a.scheduled_time
$$;

-- ---------------------------------------------------------------------------------------------
-- Notifications

-- Queued notification.send events name their notification in properties.notification_id.
CREATE VIEW notifications_summary AS
SELECT
  n.id, n.name, coalesce(n.namespace, '') AS namespace, n.error, n.error_at, n.title, n.events, n.filter,
  n.person_id, n.team_id, n.custom_services, n.created_at, n.updated_at, n.created_by, n.source,
  n.repeat_interval, n.wait_for,
  (SELECT count(*) FROM event_queue q
   WHERE q.name = 'notification.send' AND q.properties ->> 'notification_id' = n.id::text
     AND coalesce(q.attempts, 0) < 4) AS pending,
  stats.avg_duration_ms, stats.failed, stats.sent, stats.most_common_error, stats.last_failed_at
FROM notifications n
CROSS JOIN LATERAL (
  SELECT
    round(avg(h.duration_millis) FILTER (WHERE h.error IS NOT NULL), 2) AS avg_duration_ms,
    count(*) FILTER (WHERE h.error IS NOT NULL) AS failed,
    count(*) FILTER (WHERE h.status = 'sent') AS sent,
    mode() WITHIN GROUP (ORDER BY h.error) FILTER (WHERE h.error IS NOT NULL) AS most_common_error,
    max(h.created_at) FILTER (WHERE h.error IS NOT NULL) AS last_failed_at
  FROM notification_send_history h
  WHERE h.notification_id = n.id AND h.source_event NOT LIKE 'watchdog%'
) AS stats
WHERE n.deleted_at IS NULL;

-- resource_kind and resource_type BOTH hold the kind (config, component, check, canary): the
-- 1.4.48 client filters resource_type by kind (data-model 13 item 19). The concrete type
-- (e.g. Kubernetes::Pod) is in resource.type. The kind comes from the event prefix, so it
-- survives the resource being purged.
CREATE VIEW notification_send_history_summary AS
SELECT
  h.*,
  k.kind AS resource_kind,
  k.kind AS resource_type,
  CASE k.kind
    WHEN 'config' THEN (SELECT jsonb_build_object('id', ci.id, 'name', ci.name, 'type', ci.type, 'config_class', ci.config_class,
                                                  'health', ci.health, 'status', ci.status, 'deleted_at', ci.deleted_at)
                        FROM config_items ci WHERE ci.id = h.resource_id)
    WHEN 'component' THEN (SELECT jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, 'icon', c.icon,
                                                     'health', c.health, 'status', c.status, 'deleted_at', c.deleted_at)
                           FROM components c WHERE c.id = h.resource_id)
    WHEN 'check' THEN (SELECT jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, 'icon', c.icon,
                                                 'health', c.status, 'status', c.status, 'deleted_at', c.deleted_at)
                       FROM checks c WHERE c.id = h.resource_id)
    WHEN 'canary' THEN (SELECT jsonb_build_object('id', c.id, 'name', c.name, 'deleted_at', c.deleted_at)
                        FROM canaries c WHERE c.id = h.resource_id)
  END AS resource,
  CASE WHEN k.kind = 'config' THEN (SELECT ci.tags FROM config_items ci WHERE ci.id = h.resource_id) END AS resource_tags,
  CASE WHEN h.playbook_run_id IS NOT NULL THEN
    (SELECT jsonb_build_object('id', r.id, 'playbook_id', r.playbook_id, 'status', r.status,
                               'playbook_name', coalesce(nullif(p.title, ''), p.name))
     FROM playbook_runs r JOIN playbooks p ON p.id = r.playbook_id WHERE r.id = h.playbook_run_id)
  END AS playbook_run
FROM notification_send_history h
CROSS JOIN LATERAL (
  SELECT CASE
    WHEN h.source_event LIKE 'config.%' THEN 'config'
    WHEN h.source_event LIKE 'component.%' THEN 'component'
    WHEN h.source_event LIKE 'check.%' THEN 'check'
    WHEN h.source_event LIKE 'canary.%' THEN 'canary'
  END AS kind
) AS k;

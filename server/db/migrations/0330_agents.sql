-- Agents (issue 18): the `agent` role of the reference's default policy (http-api §1.7), the
-- components count the agents screen shows, and the lookup a push makes on every request.

-- Policy rows name objects, not areas: the agent role must not get the `agents` area (that would
-- let an agent's token generate further agents), only the push endpoints and what it reads.
INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES
  ('p', 'agent', 'agent-push', 'create', 'allow', 'true', 'na'),
  ('p', 'agent', 'agent-push', 'read', 'allow', 'true', 'na'),
  ('p', 'agent', 'agent-push', 'update', 'allow', 'true', 'na'),
  ('p', 'agent', 'playbooks', 'read', 'allow', 'true', 'na'),
  ('p', 'agent', 'database.public', 'read', 'allow', 'true', 'na'),
  ('p', 'agent', 'topology', 'create', 'allow', 'true', 'na'),
  ('p', 'agent', 'topology', 'update', 'allow', 'true', 'na')
ON CONFLICT DO NOTHING;

CREATE INDEX IF NOT EXISTS agents_person_id_idx ON agents (person_id) WHERE deleted_at IS NULL;

-- Every column the reference lists stays where it was; components_count is appended.
CREATE OR REPLACE VIEW agents_summary AS
SELECT
  a.*,
  (SELECT nullif(count(*), 0) FROM config_items ci WHERE ci.agent_id = a.id) AS config_count,
  (SELECT nullif(count(*), 0) FROM config_scrapers s WHERE s.agent_id = a.id AND s.deleted_at IS NULL) AS config_scrapper_count,
  (SELECT nullif(count(*), 0) FROM checks c WHERE c.agent_id = a.id AND c.deleted_at IS NULL) AS checks_count,
  (SELECT nullif(count(*), 0) FROM playbook_runs r WHERE r.agent_id = a.id) AS playbook_runs_count,
  CASE WHEN a.last_seen IS NULL THEN 'unknown'
       WHEN a.last_seen > now() - interval '61 seconds' THEN 'healthy' ELSE 'unhealthy' END AS health,
  CASE WHEN a.last_seen IS NULL THEN 'unknown'
       WHEN a.last_seen > now() - interval '61 seconds' THEN 'online' ELSE 'offline' END AS status,
  (SELECT nullif(count(*), 0) FROM components co WHERE co.agent_id = a.id AND co.deleted_at IS NULL) AS components_count
FROM agents a
WHERE a.deleted_at IS NULL;

-- Ranked sorting of incidents (issue 12 item 5): severity and status are free text, so ordering
-- by the columns themselves is alphabetical ("blocker" < "critical" < "high" < "info" ...).
--
-- Why rank columns on the read model and not a reinterpreted `order=severity`: the HTTP contract
-- stays PostgREST's. `order=severity` keeps meaning text order for every existing client, as it
-- does on the reference's PostgREST, and the incidents table is untouched (no generated columns a
-- client reading `select=*` and writing the row back would trip over). The list reads
-- `incident_summary`, which gains `severity_rank` and `status_rank`; `order=severity_rank.desc`
-- sorts the whole result set in the database, so paging stays correct.
--
-- The orders are those of contract/incident-vocabulary.ts (INCIDENT_SEVERITY_ORDER,
-- INCIDENT_STATUSES); tests/incidents/incident-sort-ranks.test.ts keeps the two in step.
-- Anything outside the vocabulary (or null) ranks 0, below the least severe / earliest value.

CREATE FUNCTION incident_severity_rank(severity text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_position(ARRAY['info', 'warning', 'low', 'medium', 'high', 'blocker', 'critical'], lower(severity)), 0)
$$;

CREATE FUNCTION incident_status_rank(status text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_position(ARRAY['new', 'open', 'investigating', 'mitigated', 'resolved', 'closed'], lower(status)), 0)
$$;

-- The same view as 0010 with the two ranks appended (CREATE OR REPLACE may only add columns at the end).
CREATE OR REPLACE VIEW incident_summary AS
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
   ) AS c) AS commenters,
  incident_severity_rank(i.severity) AS severity_rank,
  incident_status_rank(i.status) AS status_rank
FROM incidents i
LEFT JOIN people cmd ON cmd.id = i.commander_id;

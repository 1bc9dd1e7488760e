-- Authorization: the role grants of the spec's matrix (002 §6) as casbin policy rows, and the
-- indexes the per-request lookups need.
--
-- Rows follow the platform's casbin layout: p, <role>, <area>, <action>, <eft>, <condition>, <id>.
-- Areas are the matrix's resource areas; "write" is create, update and delete.

CREATE TEMPORARY TABLE rbac_areas (area text PRIMARY KEY) ON COMMIT DROP;
INSERT INTO rbac_areas (area) VALUES
  ('database'), ('rbac'), ('auth'), ('responder'), ('incident'), ('evidences'), ('comments'), ('canaries'),
  ('topologies'), ('config_scrapers'), ('identities'), ('connections'), ('kratos'), ('agents'), ('feature_flags'),
  ('logging_backends'), ('integrations'), ('notifications'), ('playbooks'), ('playbook_runs'), ('permissions'), ('views');

CREATE TEMPORARY TABLE rbac_grants (role text, area text, action text) ON COMMIT DROP;

-- admin: every action on every area and object.
INSERT INTO rbac_grants VALUES ('admin', '*', '*');

-- editor: reads everything; writes everything except connections, identities and rbac.
INSERT INTO rbac_grants VALUES ('editor', '*', 'read');
INSERT INTO rbac_grants
SELECT 'editor', a.area, w.action
  FROM rbac_areas a CROSS JOIN (VALUES ('create'), ('update'), ('delete')) AS w (action)
 WHERE a.area NOT IN ('connections', 'identities', 'rbac');

-- commander, responder, viewer, guest: read everything except rbac, identities, connections.
INSERT INTO rbac_grants
SELECT r.role, a.area, 'read'
  FROM rbac_areas a CROSS JOIN (VALUES ('commander'), ('responder'), ('viewer'), ('guest')) AS r (role)
 WHERE a.area NOT IN ('rbac', 'identities', 'connections');

-- commander, responder: write only the incident areas.
INSERT INTO rbac_grants
SELECT r.role, a.area, w.action
  FROM (VALUES ('responder'), ('incident'), ('evidences'), ('comments')) AS a (area)
 CROSS JOIN (VALUES ('commander'), ('responder')) AS r (role)
 CROSS JOIN (VALUES ('create'), ('update'), ('delete')) AS w (action);

-- Run Now on a check is offered to admin, editor, responder and commander (000 §6); editors
-- get it through canaries:create, the incident roles through this grant.
INSERT INTO rbac_grants VALUES ('commander', 'canaries', 'run'), ('responder', 'canaries', 'run');

INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5)
SELECT 'p', role, area, action, 'allow', 'true', 'na' FROM rbac_grants
ON CONFLICT DO NOTHING;

CREATE INDEX IF NOT EXISTS casbin_rule_v0_idx ON casbin_rule (v0);

-- Access tokens are looked up by the SHA-256 of the presented secret on every request.
CREATE UNIQUE INDEX IF NOT EXISTS access_tokens_value_key ON access_tokens (value);
CREATE INDEX IF NOT EXISTS access_tokens_created_by_idx ON access_tokens (created_by);
CREATE INDEX IF NOT EXISTS lookout_sessions_person_idx ON lookout.sessions (person_id);

-- People switched off with /people/update {active: false}: their sessions and tokens stop
-- working while the person row (and its history) stays.
CREATE TABLE lookout.inactive_people (
  person_id uuid PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
  since timestamptz NOT NULL DEFAULT now()
);

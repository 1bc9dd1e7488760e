-- Incidents, hypotheses, evidence, comments, responders and their timeline (data-model section 6).

CREATE SEQUENCE incident_id_sequence START WITH 1;

CREATE TABLE incident_rules (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  spec jsonb,
  source text,
  created_by uuid NOT NULL REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id),
  UNIQUE (name)
);

CREATE TABLE incidents (
  id uuid NOT NULL DEFAULT generate_ulid(),
  incident_id varchar(10) NOT NULL DEFAULT 'INC-' || nextval('incident_id_sequence'),
  incident_rule_id uuid REFERENCES incident_rules (id),
  title text NOT NULL,
  created_by uuid NOT NULL REFERENCES people (id),
  commander_id uuid REFERENCES people (id),
  communicator_id uuid REFERENCES people (id),
  severity text NOT NULL,
  description text NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  acknowledged timestamptz,
  resolved timestamptz,
  closed timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (incident_id)
);
ALTER SEQUENCE incident_id_sequence OWNED BY incidents.incident_id;
CREATE INDEX incidents_created_at_idx ON incidents (created_at DESC);
CREATE INDEX incidents_status_idx ON incidents (status);

-- Incident children are hard-deleted by the client; deleting an incident, hypothesis or
-- comment cascades so the DELETE succeeds instead of failing on dependent rows.
CREATE TABLE responders (
  id uuid NOT NULL DEFAULT generate_ulid(),
  incident_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  type text NOT NULL,
  index smallint,
  person_id uuid REFERENCES people (id),
  team_id uuid REFERENCES teams (id),
  external_id text,
  properties jsonb,
  acknowledged timestamptz,
  resolved timestamptz,
  closed timestamptz,
  created_by uuid NOT NULL REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE INDEX responders_incident_id_idx ON responders (incident_id);

CREATE TABLE hypotheses (
  id uuid NOT NULL DEFAULT generate_ulid(),
  created_by uuid NOT NULL REFERENCES people (id),
  incident_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  parent_id uuid REFERENCES hypotheses (id) ON DELETE CASCADE,
  owner uuid REFERENCES responders (id),
  team_id uuid REFERENCES teams (id),
  type text NOT NULL CHECK (type IN ('root', 'factor', 'solution')),
  title text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE INDEX hypotheses_incident_id_idx ON hypotheses (incident_id);
CREATE INDEX hypotheses_parent_id_idx ON hypotheses (parent_id);

-- Evidence outlives the catalog rows it points at (retention may hard-delete them).
CREATE TABLE evidences (
  id uuid NOT NULL DEFAULT generate_ulid(),
  description text NOT NULL,
  hypothesis_id uuid NOT NULL REFERENCES hypotheses (id) ON DELETE CASCADE,
  config_id uuid REFERENCES config_items (id) ON DELETE SET NULL,
  config_change_id uuid REFERENCES config_changes (id) ON DELETE SET NULL,
  config_analysis_id uuid REFERENCES config_analysis (id) ON DELETE SET NULL,
  component_id uuid REFERENCES components (id) ON DELETE SET NULL,
  check_id uuid REFERENCES checks (id) ON DELETE SET NULL,
  definition_of_done boolean DEFAULT false,
  done boolean,
  factor boolean,
  mitigator boolean,
  created_by uuid NOT NULL REFERENCES people (id),
  type text NOT NULL,
  evidence jsonb,
  properties jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  script text,
  script_result text,
  PRIMARY KEY (id)
);
CREATE INDEX evidences_hypothesis_id_idx ON evidences (hypothesis_id);
CREATE INDEX evidences_component_id_idx ON evidences (component_id) WHERE component_id IS NOT NULL;
CREATE INDEX evidences_config_id_idx ON evidences (config_id) WHERE config_id IS NOT NULL;

CREATE TABLE comments (
  id uuid NOT NULL DEFAULT generate_ulid(),
  created_by uuid NOT NULL REFERENCES people (id),
  comment text NOT NULL,
  external_id text,
  external_created_by text,
  incident_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  responder_id uuid REFERENCES responders (id),
  hypothesis_id uuid REFERENCES hypotheses (id) ON DELETE CASCADE,
  read smallint[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);
CREATE INDEX comments_incident_id_idx ON comments (incident_id, created_at);
CREATE INDEX comments_hypothesis_id_idx ON comments (hypothesis_id) WHERE hypothesis_id IS NOT NULL;

CREATE TABLE incident_histories (
  id uuid NOT NULL DEFAULT generate_ulid(),
  incident_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  created_by uuid NOT NULL REFERENCES people (id),
  type text,
  description text,
  hypothesis_id uuid REFERENCES hypotheses (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  responder_id uuid REFERENCES responders (id) ON DELETE CASCADE,
  evidence_id uuid REFERENCES evidences (id) ON DELETE CASCADE,
  comment_id uuid REFERENCES comments (id) ON DELETE CASCADE,
  PRIMARY KEY (id)
);
CREATE INDEX incident_histories_incident_id_idx ON incident_histories (incident_id, created_at DESC);

CREATE TABLE comment_responders (
  id uuid NOT NULL DEFAULT generate_ulid(),
  comment_id uuid NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
  responder_id uuid NOT NULL REFERENCES responders (id) ON DELETE CASCADE,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);

CREATE TABLE incident_relationships (
  incident_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  related_id uuid NOT NULL REFERENCES incidents (id) ON DELETE CASCADE,
  relationship text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX incident_relationships_incident_id_idx ON incident_relationships (incident_id);

CREATE TABLE severities (
  id integer,
  name text NOT NULL,
  aliases text[],
  icon text
);
INSERT INTO severities (id, name, icon, aliases) VALUES
  (1, 'Critical', 'error', ARRAY['P1']),
  (2, 'Blocker', 'error', ARRAY['P2']),
  (3, 'High', 'warning', ARRAY['P3']),
  (4, 'Medium', 'info', ARRAY['P4']),
  (5, 'Low', 'info', ARRAY['P4']);

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER incident_rules_updated_at BEFORE UPDATE ON incident_rules FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER incidents_updated_at BEFORE UPDATE ON incidents FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER responders_updated_at BEFORE UPDATE ON responders FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER hypotheses_updated_at BEFORE UPDATE ON hypotheses FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER evidences_updated_at BEFORE UPDATE ON evidences FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER comments_updated_at BEFORE UPDATE ON comments FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER incident_histories_updated_at BEFORE UPDATE ON incident_histories FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER comment_responders_updated_at BEFORE UPDATE ON comment_responders FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER incident_relationships_updated_at BEFORE UPDATE ON incident_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE FUNCTION incidents_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description)
    VALUES (NEW.id, NEW.created_by, 'incident.created', NEW.incident_id);
    PERFORM enqueue_event('incident.created', NEW.id, NULL);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    -- The reference attributes status changes to the incident's creator (data-model 13 item 4).
    INSERT INTO incident_histories (incident_id, created_by, type, description)
    VALUES (NEW.id, NEW.created_by, 'incident.status_updated', NEW.status);
    PERFORM enqueue_event('incident.status.' || NEW.status, NEW.id, NULL);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER incidents_history AFTER INSERT OR UPDATE ON incidents
  FOR EACH ROW EXECUTE FUNCTION incidents_history();

CREATE FUNCTION hypotheses_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description, hypothesis_id)
    VALUES (NEW.incident_id, NEW.created_by, 'hypothesis.created', NEW.status, NEW.id);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description, hypothesis_id)
    VALUES (NEW.incident_id, NEW.created_by, 'hypothesis.status_updated', NEW.status, NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER hypotheses_history AFTER INSERT OR UPDATE ON hypotheses
  FOR EACH ROW EXECUTE FUNCTION hypotheses_history();

CREATE FUNCTION evidences_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  parent_incident uuid;
  old_dod boolean := false;
  old_done boolean := false;
BEGIN
  SELECT incident_id INTO parent_incident FROM hypotheses WHERE id = NEW.hypothesis_id;

  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, hypothesis_id, evidence_id)
    VALUES (parent_incident, NEW.created_by, 'evidence.created', NEW.hypothesis_id, NEW.id);
  ELSE
    old_dod := coalesce(OLD.definition_of_done, false);
    old_done := coalesce(OLD.done, false);
    IF NOT old_dod AND coalesce(NEW.definition_of_done, false) THEN
      INSERT INTO incident_histories (incident_id, created_by, type, hypothesis_id, evidence_id)
      VALUES (parent_incident, NEW.created_by, 'evidence.done_definition_added', NEW.hypothesis_id, NEW.id);
    END IF;
  END IF;

  IF coalesce(NEW.definition_of_done, false) <> old_dod THEN
    PERFORM enqueue_event(CASE WHEN NEW.definition_of_done THEN 'incident.dod.added' ELSE 'incident.dod.removed' END,
      NEW.id, jsonb_build_object('incident_id', parent_incident));
  END IF;
  IF coalesce(NEW.done, false) <> old_done THEN
    PERFORM enqueue_event(CASE WHEN NEW.done THEN 'incident.dod.passed' ELSE 'incident.dod.regressed' END,
      NEW.id, jsonb_build_object('incident_id', parent_incident));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER evidences_history AFTER INSERT OR UPDATE ON evidences
  FOR EACH ROW EXECUTE FUNCTION evidences_history();

CREATE FUNCTION responders_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, responder_id)
    VALUES (NEW.incident_id, NEW.created_by, 'responder.created', NEW.id);
    PERFORM enqueue_event('incident.responder.added', NEW.id, jsonb_build_object('incident_id', NEW.incident_id));
  ELSIF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    PERFORM enqueue_event('incident.responder.removed', NEW.id, jsonb_build_object('incident_id', NEW.incident_id));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER responders_history AFTER INSERT OR UPDATE ON responders
  FOR EACH ROW EXECUTE FUNCTION responders_history();

CREATE FUNCTION comments_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM enqueue_event('incident.comment.added', NEW.id, jsonb_build_object('incident_id', NEW.incident_id));
  IF NEW.responder_id IS NOT NULL THEN
    INSERT INTO incident_histories (incident_id, created_by, type, responder_id, comment_id)
    VALUES (NEW.incident_id, NEW.created_by, 'responder.commented', NEW.responder_id, NEW.id);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER comments_history AFTER INSERT ON comments
  FOR EACH ROW EXECUTE FUNCTION comments_history();

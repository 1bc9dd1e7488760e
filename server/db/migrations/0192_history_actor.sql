-- Who changed an incident, a hypothesis or an evidence. The reference's triggers attribute an
-- update (a status change, a definition of done) to the row's creator, so a timeline said
-- "Alice resolved the incident" when Bob did. The data API sets `lookout.actor` (the caller's
-- person id, transaction-local) around every write; triggers name that person and fall back to
-- the creator for writes that carry no caller (engine jobs, rules, direct SQL).
CREATE FUNCTION history_actor(fallback uuid) RETURNS uuid
LANGUAGE plpgsql STABLE AS $$
DECLARE
  actor text := current_setting('lookout.actor', true);
BEGIN
  IF actor ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    RETURN actor::uuid;
  END IF;
  RETURN fallback;
END
$$;

CREATE OR REPLACE FUNCTION incidents_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description)
    VALUES (NEW.id, NEW.created_by, 'incident.created', NEW.incident_id);
    PERFORM enqueue_event('incident.created', NEW.id, NULL);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description)
    VALUES (NEW.id, history_actor(NEW.created_by), 'incident.status_updated', NEW.status);
    PERFORM enqueue_event('incident.status.' || NEW.status, NEW.id, NULL);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION hypotheses_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description, hypothesis_id)
    VALUES (NEW.incident_id, NEW.created_by, 'hypothesis.created', NEW.status, NEW.id);
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO incident_histories (incident_id, created_by, type, description, hypothesis_id)
    VALUES (NEW.incident_id, history_actor(NEW.created_by), 'hypothesis.status_updated', NEW.status, NEW.id);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION evidences_history() RETURNS trigger
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
      VALUES (parent_incident, history_actor(NEW.created_by), 'evidence.done_definition_added', NEW.hypothesis_id, NEW.id);
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

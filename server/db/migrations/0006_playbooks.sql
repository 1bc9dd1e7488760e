-- Playbooks, runs, actions, approvals and artifacts (data-model section 7).

-- Defined for compatibility with the reference schema; no column uses it (data-model 13 item 5).
CREATE TYPE playbook_run_status AS ENUM ('scheduled', 'running', 'cancelled', 'completed', 'failed', 'pending', 'sleeping');

CREATE TABLE playbooks (
  id uuid NOT NULL DEFAULT generate_ulid(),
  namespace text NOT NULL DEFAULT 'default',
  name text NOT NULL,
  title text NOT NULL DEFAULT '',
  icon text,
  description text,
  spec jsonb NOT NULL,
  created_by uuid REFERENCES people (id),
  source source NOT NULL,
  category text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX playbooks_namespace_name_category_key ON playbooks (namespace, name, category) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX playbooks_webhook_path_key ON playbooks ((spec -> 'on' -> 'webhook' ->> 'path'))
  WHERE deleted_at IS NULL AND coalesce(spec -> 'on' -> 'webhook' ->> 'path', '') <> '';

CREATE TABLE playbook_runs (
  id uuid NOT NULL DEFAULT generate_ulid(),
  playbook_id uuid NOT NULL REFERENCES playbooks (id) ON DELETE CASCADE,
  spec jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'scheduled',
  created_at timestamptz NOT NULL DEFAULT now(),
  start_time timestamptz,
  scheduled_time timestamptz NOT NULL DEFAULT now(),
  end_time timestamptz,
  timeout bigint NOT NULL DEFAULT 1800000000000,
  created_by uuid REFERENCES people (id),
  notification_send_id uuid REFERENCES notification_send_history (id),
  check_id uuid REFERENCES checks (id),
  config_id uuid REFERENCES config_items (id),
  component_id uuid REFERENCES components (id),
  parameters jsonb,
  request jsonb,
  agent_id uuid DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  parent_id uuid REFERENCES playbook_runs (id),
  error text,
  PRIMARY KEY (id)
);
CREATE INDEX playbook_runs_playbook_id_idx ON playbook_runs (playbook_id, created_at DESC);
CREATE INDEX playbook_runs_created_at_idx ON playbook_runs (created_at DESC);
CREATE INDEX playbook_runs_parent_id_idx ON playbook_runs (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX playbook_runs_config_id_idx ON playbook_runs (config_id, start_time) WHERE config_id IS NOT NULL;
CREATE INDEX playbook_runs_status_scheduled_idx ON playbook_runs (status, scheduled_time);

CREATE TABLE playbook_run_actions (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  status text NOT NULL DEFAULT 'running',
  retry_count integer,
  playbook_run_id uuid REFERENCES playbook_runs (id) ON DELETE CASCADE,
  start_time timestamptz,
  scheduled_time timestamptz NOT NULL DEFAULT now(),
  end_time timestamptz,
  result jsonb,
  is_pushed boolean NOT NULL DEFAULT false,
  agent_id uuid DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  error text,
  PRIMARY KEY (id)
);
CREATE INDEX playbook_run_actions_run_id_idx ON playbook_run_actions (playbook_run_id, start_time);

CREATE TABLE playbook_approvals (
  id uuid NOT NULL DEFAULT generate_ulid(),
  run_id uuid NOT NULL REFERENCES playbook_runs (id) ON DELETE CASCADE,
  person_id uuid REFERENCES people (id),
  team_id uuid REFERENCES teams (id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX playbook_approvals_run_id_idx ON playbook_approvals (run_id);

CREATE TABLE playbook_action_agent_data (
  action_id uuid NOT NULL REFERENCES playbook_run_actions (id) ON DELETE CASCADE,
  playbook_id uuid NOT NULL,
  run_id uuid NOT NULL,
  spec jsonb NOT NULL,
  env jsonb,
  UNIQUE (action_id)
);

CREATE TABLE artifacts (
  id uuid NOT NULL DEFAULT generate_ulid(),
  check_id uuid REFERENCES checks (id),
  check_time timestamptz,
  playbook_run_action_id uuid REFERENCES playbook_run_actions (id),
  config_change_id uuid REFERENCES config_changes (id) ON DELETE CASCADE,
  scraper_id uuid REFERENCES config_scrapers (id) ON DELETE CASCADE,
  -- job_history is unlogged, so it cannot be an FK target; a trigger below clears dangling ids.
  job_history_id uuid,
  connection_id uuid,
  path text NOT NULL,
  filename text NOT NULL,
  content_type text,
  size integer NOT NULL,
  checksum text NOT NULL,
  content bytea,
  compression_type text,
  is_pushed boolean NOT NULL DEFAULT false,
  is_data_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  expires_at timestamptz,
  PRIMARY KEY (id)
);
CREATE INDEX artifacts_playbook_run_action_id_idx ON artifacts (playbook_run_action_id) WHERE playbook_run_action_id IS NOT NULL;
CREATE INDEX artifacts_job_history_id_idx ON artifacts (job_history_id) WHERE job_history_id IS NOT NULL;
CREATE INDEX artifacts_check_idx ON artifacts (check_id, check_time) WHERE check_id IS NOT NULL;

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER playbooks_updated_at BEFORE UPDATE ON playbooks FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER playbook_run_actions_is_pushed BEFORE UPDATE ON playbook_run_actions FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER artifacts_updated_at BEFORE UPDATE ON artifacts FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER artifacts_is_pushed BEFORE UPDATE ON artifacts FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER playbooks_table_activity AFTER INSERT OR UPDATE OR DELETE ON playbooks
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();

CREATE FUNCTION playbooks_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('playbook_updated', NEW.id::text);
  IF (OLD.spec -> 'approval') IS DISTINCT FROM (NEW.spec -> 'approval') THEN
    PERFORM enqueue_event('playbook.spec.approval.updated', NEW.id, NULL);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER playbooks_updated AFTER UPDATE ON playbooks
  FOR EACH ROW EXECUTE FUNCTION playbooks_after_update();

CREATE FUNCTION playbook_runs_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.status = 'scheduled' AND OLD.status IS DISTINCT FROM NEW.status) THEN
    PERFORM pg_notify('playbook_run_updates', NEW.id::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER playbook_runs_updates AFTER INSERT OR UPDATE OF status ON playbook_runs
  FOR EACH ROW EXECUTE FUNCTION playbook_runs_notify();

CREATE FUNCTION playbook_run_actions_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR (NEW.status = 'scheduled' AND OLD.status IS DISTINCT FROM NEW.status) THEN
    PERFORM pg_notify('playbook_action_updates', json_build_object('id', NEW.id, 'agent_id', NEW.agent_id)::text);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.agent_id IS NOT NULL AND OLD.end_time IS NULL AND NEW.end_time IS NOT NULL THEN
    PERFORM pg_notify('table_activity', json_build_object(
      'table', TG_TABLE_NAME, 'operation', TG_OP, 'id', NEW.id)::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER playbook_run_actions_updates AFTER INSERT OR UPDATE ON playbook_run_actions
  FOR EACH ROW EXECUTE FUNCTION playbook_run_actions_notify();

-- One queued event per run: further approvals of the same run re-arm it.
CREATE FUNCTION playbook_approvals_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM enqueue_event('playbook.approval.inserted', NEW.run_id, jsonb_build_object('run_id', NEW.run_id, 'id', NEW.id));
  RETURN NULL;
END
$$;
CREATE TRIGGER playbook_approvals_inserted AFTER INSERT ON playbook_approvals
  FOR EACH ROW EXECUTE FUNCTION playbook_approvals_event();

CREATE FUNCTION job_history_detach_artifacts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE artifacts SET job_history_id = NULL WHERE job_history_id = OLD.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER job_history_deleted AFTER DELETE ON job_history
  FOR EACH ROW EXECUTE FUNCTION job_history_detach_artifacts();

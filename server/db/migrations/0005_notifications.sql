-- Notifications, silences, send history and grouping (data-model section 8).

CREATE TABLE notifications (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL DEFAULT generate_ulid()::text,
  namespace text,
  events text[] NOT NULL,
  error text,
  error_at timestamptz,
  title text,
  template text,
  filter text,
  properties jsonb,
  playbook_id uuid,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  team_id uuid REFERENCES teams (id) ON DELETE CASCADE,
  repeat_interval text,
  inhibitions jsonb,
  wait_for bigint,
  wait_for_eval_period bigint,
  group_by text[],
  group_by_interval bigint,
  watchdog_schedule text,
  custom_services jsonb,
  fallback_delay bigint,
  fallback_custom_services jsonb,
  fallback_playbook_id uuid,
  fallback_person_id uuid,
  fallback_team_id uuid,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  source source,
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX notifications_name_namespace_key ON notifications (name, namespace) WHERE deleted_at IS NULL;

CREATE TABLE notification_silences (
  id uuid NOT NULL DEFAULT generate_ulid(),
  namespace text,
  name text NOT NULL DEFAULT generate_ulid()::text,
  description text,
  filter text,
  selectors jsonb,
  error text,
  "from" timestamptz,
  until timestamptz,
  recursive boolean,
  config_id uuid REFERENCES config_items (id) ON DELETE CASCADE,
  check_id uuid REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid REFERENCES canaries (id) ON DELETE CASCADE,
  component_id uuid REFERENCES components (id) ON DELETE CASCADE,
  source source,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);

CREATE TABLE notification_send_history (
  id uuid NOT NULL DEFAULT generate_ulid(),
  notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  body text,
  body_payload jsonb,
  status text,
  not_before timestamptz,
  retries integer NOT NULL DEFAULT 0,
  payload jsonb,
  count integer NOT NULL DEFAULT 1,
  first_observed timestamptz NOT NULL DEFAULT now(),
  source_event text NOT NULL,
  resource_id uuid NOT NULL,
  resource_health text,
  resource_status text,
  resource_health_description text,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  team_id uuid,
  connection_id uuid,
  silenced_by uuid,
  playbook_run_id uuid,
  error text,
  duration_millis integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  group_id uuid,
  parent_id uuid REFERENCES notification_send_history (id) ON DELETE CASCADE,
  PRIMARY KEY (id)
);
CREATE INDEX notification_send_history_notification_id_idx ON notification_send_history (notification_id, created_at DESC);
CREATE INDEX notification_send_history_created_at_idx ON notification_send_history (created_at DESC);
CREATE INDEX notification_send_history_resource_id_idx ON notification_send_history (resource_id);

CREATE TABLE notification_groups (
  id uuid NOT NULL DEFAULT generate_ulid(),
  hash text NOT NULL,
  notification_id uuid NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);

CREATE TABLE notification_group_resources (
  group_id uuid NOT NULL REFERENCES notification_groups (id) ON DELETE CASCADE,
  config_id uuid REFERENCES config_items (id) ON DELETE CASCADE,
  check_id uuid REFERENCES checks (id) ON DELETE CASCADE,
  component_id uuid REFERENCES components (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz
);
CREATE UNIQUE INDEX notification_group_resources_unresolved_key
  ON notification_group_resources (group_id, config_id, check_id, component_id) NULLS NOT DISTINCT
  WHERE resolved_at IS NULL;

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER notifications_updated_at BEFORE UPDATE ON notifications FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER notification_silences_updated_at BEFORE UPDATE ON notification_silences FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER notification_group_resources_updated_at BEFORE UPDATE ON notification_group_resources FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER notifications_table_activity AFTER INSERT OR UPDATE OR DELETE ON notifications
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();

-- A configuration error is stale once the field that caused it is edited (a change from or to
-- null is an enable/disable, not an edit, so it keeps the error).
CREATE FUNCTION notifications_clear_error() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (OLD.filter IS NOT NULL AND NEW.filter IS NOT NULL AND OLD.filter <> NEW.filter)
     OR (OLD.custom_services IS NOT NULL AND NEW.custom_services IS NOT NULL AND OLD.custom_services <> NEW.custom_services)
     OR (OLD.team_id IS NOT NULL AND NEW.team_id IS NOT NULL AND OLD.team_id <> NEW.team_id) THEN
    NEW.error := NULL;
    NEW.error_at := NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER notifications_error_reset BEFORE UPDATE ON notifications
  FOR EACH ROW EXECUTE FUNCTION notifications_clear_error();

CREATE FUNCTION notification_silences_clear_error() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.filter IS DISTINCT FROM OLD.filter THEN
    NEW.error := NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER notification_silences_error_reset BEFORE UPDATE ON notification_silences
  FOR EACH ROW EXECUTE FUNCTION notification_silences_clear_error();

-- Notification outcomes for config resources appear in the config's change timeline.
CREATE FUNCTION notification_send_history_to_config_changes() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  outcome text := NEW.status;
BEGIN
  IF outcome IS NULL OR outcome NOT IN ('sent', 'attempting_fallback', 'error', 'silenced', 'inhibited', 'grouped', 'repeat-interval') THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.status IS NOT DISTINCT FROM NEW.status THEN
    RETURN NULL;
  END IF;
  IF NEW.source_event NOT LIKE 'config.%' OR NOT EXISTS (SELECT 1 FROM config_items WHERE id = NEW.resource_id) THEN
    RETURN NULL;
  END IF;
  INSERT INTO config_changes (config_id, external_change_id, change_type, severity, source, summary, details)
  VALUES (
    NEW.resource_id,
    NEW.id::text || ':' || outcome,
    'Notification' || (SELECT string_agg(initcap(part), '') FROM unnest(string_to_array(replace(outcome, '-', '_'), '_')) AS part),
    CASE outcome WHEN 'error' THEN 'high' WHEN 'attempting_fallback' THEN 'medium' ELSE 'info' END,
    'notification',
    coalesce((SELECT coalesce(n.title, n.name) FROM notifications n WHERE n.id = NEW.notification_id), 'notification')
      || ': ' || outcome,
    jsonb_build_object('notification_id', NEW.notification_id, 'send_history_id', NEW.id,
      'source_event', NEW.source_event, 'error', NEW.error));
  RETURN NULL;
END
$$;
CREATE TRIGGER notification_send_history_config_change AFTER INSERT OR UPDATE OF status ON notification_send_history
  FOR EACH ROW EXECUTE FUNCTION notification_send_history_to_config_changes();

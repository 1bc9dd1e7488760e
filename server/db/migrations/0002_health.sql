-- Health: canaries, checks and their run history (data-model section 4).

CREATE TABLE canaries (
  id uuid NOT NULL DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  name text NOT NULL,
  namespace text NOT NULL,
  labels jsonb,
  annotations jsonb,
  spec jsonb NOT NULL,
  source text,
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz DEFAULT now(),
  created_by uuid REFERENCES people (id),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX canaries_name_namespace_source_key ON canaries (agent_id, name, namespace, source)
  WHERE deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000';
CREATE INDEX canaries_live_name_idx ON canaries (name) WHERE deleted_at IS NULL;
CREATE INDEX canaries_source_idx ON canaries (source) WHERE deleted_at IS NULL;

CREATE TABLE checks (
  id uuid NOT NULL DEFAULT generate_ulid(),
  canary_id uuid NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  type text NOT NULL,
  name text NOT NULL,
  namespace text,
  description text,
  icon text,
  spec jsonb,
  labels jsonb,
  owner text,
  severity text,
  category text,
  is_pushed boolean NOT NULL DEFAULT false,
  transformed boolean,
  last_runtime timestamptz,
  last_transition_time timestamptz,
  next_runtime timestamptz,
  silenced_at timestamptz,
  status text,
  created_at timestamptz,
  updated_at timestamptz,
  deleted_at timestamptz,
  PRIMARY KEY (id),
  UNIQUE (canary_id, type, name, agent_id)
);
CREATE INDEX checks_live_name_idx ON checks (name) WHERE deleted_at IS NULL;
CREATE INDEX checks_canary_id_idx ON checks (canary_id);

CREATE UNLOGGED TABLE checks_unlogged (
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL,
  status text,
  last_runtime timestamptz,
  next_runtime timestamptz,
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (check_id)
);
CREATE INDEX checks_unlogged_canary_id_idx ON checks_unlogged (canary_id);

CREATE TABLE check_statuses (
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  details jsonb,
  duration integer,
  error text,
  time timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  invalid boolean,
  message text,
  status boolean,
  severity text,
  is_pushed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (check_id, time)
);
-- check_summary reads the last hour of each check, newest first.
CREATE INDEX check_statuses_check_id_time_idx ON check_statuses (check_id, time DESC);
CREATE INDEX check_statuses_time_idx ON check_statuses (time);

CREATE TABLE check_statuses_1h (
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  duration integer NOT NULL,
  total integer NOT NULL,
  passed integer NOT NULL,
  failed integer NOT NULL,
  PRIMARY KEY (check_id, created_at)
);

CREATE TABLE check_statuses_1d (
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  duration integer NOT NULL,
  total integer NOT NULL,
  passed integer NOT NULL,
  failed integer NOT NULL,
  PRIMARY KEY (check_id, created_at)
);

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER canaries_updated_at BEFORE UPDATE ON canaries FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER canaries_is_pushed BEFORE UPDATE ON canaries FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER checks_updated_at BEFORE UPDATE ON checks FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER checks_is_pushed BEFORE UPDATE ON checks FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER checks_unlogged_updated_at BEFORE UPDATE ON checks_unlogged FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER checks_unlogged_is_pushed BEFORE UPDATE ON checks_unlogged FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER check_statuses_is_pushed BEFORE UPDATE ON check_statuses FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();

CREATE FUNCTION checks_set_last_transition_time() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- A new check with a known status has been in that state since it was written.
    IF NEW.status IS NOT NULL AND NEW.last_transition_time IS NULL THEN
      NEW.last_transition_time := now();
    END IF;
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.last_transition_time := now();
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER checks_last_transition_time BEFORE INSERT OR UPDATE ON checks
  FOR EACH ROW EXECUTE FUNCTION checks_set_last_transition_time();

-- A soft-deleted canary takes its checks and check links with it, stamped with the same time.
CREATE FUNCTION canaries_cascade_soft_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    UPDATE checks SET deleted_at = NEW.deleted_at WHERE canary_id = NEW.id AND deleted_at IS NULL;
    UPDATE check_component_relationships SET deleted_at = NEW.deleted_at WHERE canary_id = NEW.id AND deleted_at IS NULL;
    UPDATE check_config_relationships SET deleted_at = NEW.deleted_at WHERE canary_id = NEW.id AND deleted_at IS NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER canaries_soft_delete AFTER UPDATE OF deleted_at ON canaries
  FOR EACH ROW EXECUTE FUNCTION canaries_cascade_soft_delete();

-- A soft-deleted check drops its links and any canary spawned from it (source 'check=<id>').
-- Config links are dropped too, so a deleted check no longer shows on catalog pages.
CREATE FUNCTION checks_cascade_soft_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    UPDATE check_component_relationships SET deleted_at = NEW.deleted_at WHERE check_id = NEW.id AND deleted_at IS NULL;
    UPDATE check_config_relationships SET deleted_at = NEW.deleted_at WHERE check_id = NEW.id AND deleted_at IS NULL;
    UPDATE canaries SET deleted_at = NEW.deleted_at WHERE source = 'check=' || NEW.id::text AND deleted_at IS NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER checks_soft_delete AFTER UPDATE OF deleted_at ON checks
  FOR EACH ROW EXECUTE FUNCTION checks_cascade_soft_delete();

CREATE FUNCTION checks_unlogged_status_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('healthy', 'unhealthy') THEN
    PERFORM enqueue_event(
      CASE NEW.status WHEN 'healthy' THEN 'check.passed' ELSE 'check.failed' END,
      NEW.check_id,
      jsonb_build_object('last_runtime', NEW.last_runtime));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER checks_unlogged_status_change AFTER UPDATE OF status ON checks_unlogged
  FOR EACH ROW EXECUTE FUNCTION checks_unlogged_status_event();

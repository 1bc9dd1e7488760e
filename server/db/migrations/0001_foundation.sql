-- Foundation: shared types, id generation, generic trigger functions, and the identity tables
-- (agents, people, teams) that almost every other table points at.

CREATE TYPE source AS ENUM ('KubernetesCRD', 'ConfigFile', 'UI', 'Topology', 'Push', 'CRDSync', 'ApplicationCRD', 'System');

-- A ULID stored as a uuid: 48 bits of milliseconds, then random bits, so ids sort by creation time.
CREATE FUNCTION generate_ulid() RETURNS uuid
LANGUAGE sql VOLATILE AS $$
  SELECT (lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
          || substr(replace(gen_random_uuid()::text, '-', ''), 13))::uuid
$$;

-- Generic BEFORE UPDATE trigger for every table with updated_at (data-model 1.2 / 1.3).
-- Written against to_jsonb(row) so a single function serves tables with and without
-- deleted_at, agent_id and is_pushed.
CREATE FUNCTION set_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  new_row jsonb := to_jsonb(NEW);
  old_row jsonb := to_jsonb(OLD);
BEGIN
  IF new_row ? 'deleted_at' THEN
    -- The first deletion time wins; only an explicit undelete (null) may replace it.
    IF OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NOT NULL AND NEW.deleted_at <> OLD.deleted_at THEN
      NEW.deleted_at := OLD.deleted_at;
    END IF;
    IF NEW.deleted_at IS NOT NULL THEN
      RETURN NEW;
    END IF;
  END IF;

  -- Rows replicated from a remote agent keep the timestamp the agent sent.
  IF new_row ? 'agent_id' AND (new_row ->> 'agent_id') IS NOT NULL
     AND (new_row ->> 'agent_id') <> '00000000-0000-0000-0000-000000000000' THEN
    RETURN NEW;
  END IF;

  IF TG_TABLE_NAME = 'canaries' THEN
    IF (old_row -> 'spec') IS NOT DISTINCT FROM (new_row -> 'spec') THEN
      RETURN NEW;
    END IF;
  ELSIF TG_TABLE_NAME = 'config_items' THEN
    IF (old_row -> 'config') IS NOT DISTINCT FROM (new_row -> 'config') THEN
      RETURN NEW;
    END IF;
  ELSIF (old_row - 'updated_at' - 'is_pushed') = (new_row - 'updated_at' - 'is_pushed') THEN
    -- Nothing but is_pushed (or nothing at all) changed.
    RETURN NEW;
  END IF;

  NEW.updated_at := now();
  RETURN NEW;
END
$$;

-- Agent replication (data-model 1.4): any real change makes the row due for another push.
CREATE FUNCTION reset_is_pushed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (to_jsonb(OLD) - 'is_pushed' - 'updated_at') <> (to_jsonb(NEW) - 'is_pushed' - 'updated_at') THEN
    NEW.is_pushed := false;
  END IF;
  RETURN NEW;
END
$$;

-- NOTIFY table_activity for tables whose changes the backend caches (data-model 1.7).
CREATE FUNCTION notify_table_activity() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  row_data jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
BEGIN
  PERFORM pg_notify('table_activity', json_build_object(
    'table', TG_TABLE_NAME, 'operation', TG_OP, 'id', coalesce(row_data ->> 'id', row_data ->> 'team_id'))::text);
  RETURN NULL;
END
$$;

-- ---------------------------------------------------------------------------------------------
-- People, teams, agents

CREATE TABLE people (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  avatar text,
  type text,
  team_id uuid,
  organization text,
  title text,
  email text,
  phone text,
  properties jsonb,
  external_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  last_login timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX people_email_unique_idx ON people (email) WHERE deleted_at IS NULL;

CREATE TABLE teams (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  icon text,
  spec jsonb,
  source text,
  created_by uuid NOT NULL REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX teams_name_unique_idx ON teams (name) WHERE deleted_at IS NULL;

-- people and teams reference each other; the FK keeps PostgreSQL's default name people_team_id_fkey.
ALTER TABLE people ADD FOREIGN KEY (team_id) REFERENCES teams (id);

CREATE TABLE team_members (
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  source text NOT NULL DEFAULT 'UI',
  PRIMARY KEY (team_id, person_id)
);
CREATE INDEX team_members_person_id_idx ON team_members (person_id);

CREATE TABLE agents (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  hostname text,
  description text,
  ip text,
  version text,
  username text,
  person_id uuid,
  properties jsonb,
  tls text,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  cleanup boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  last_seen timestamptz,
  last_received timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX agents_name_unique_idx ON agents (name) WHERE deleted_at IS NULL;

CREATE TABLE access_tokens (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  value text NOT NULL,
  auto_renew boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  created_by uuid REFERENCES people (id),
  expires_at timestamptz,
  PRIMARY KEY (id),
  UNIQUE (person_id, name)
);

-- ---------------------------------------------------------------------------------------------
-- Event queue: triggers of every domain enqueue into it (data-model 1.7, 10.4)

CREATE TABLE event_queue (
  id uuid NOT NULL DEFAULT generate_ulid(),
  event_id uuid,
  name text NOT NULL,
  properties jsonb,
  error text,
  delay bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt timestamptz,
  attempts integer DEFAULT 0,
  priority integer NOT NULL DEFAULT 100,
  PRIMARY KEY (id),
  UNIQUE (name, event_id)
);
CREATE INDEX event_queue_name_created_at_idx ON event_queue (name, created_at);

-- Re-enqueueing an event that is still queued restarts it instead of duplicating it.
CREATE FUNCTION enqueue_event(p_name text, p_event_id uuid, p_properties jsonb DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_queue (name, event_id, properties)
  VALUES (p_name, p_event_id, p_properties)
  ON CONFLICT (name, event_id) DO UPDATE
    SET created_at = now(), attempts = 0, last_attempt = NULL, properties = EXCLUDED.properties;
END
$$;

CREATE FUNCTION notify_event_queue() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('event_queue_updates', NEW.name);
  RETURN NULL;
END
$$;
CREATE TRIGGER event_queue_notify AFTER INSERT OR UPDATE OF created_at ON event_queue
  FOR EACH ROW EXECUTE FUNCTION notify_event_queue();

-- ---------------------------------------------------------------------------------------------
-- Jobs and settings that other domains reference

CREATE UNLOGGED TABLE job_history (
  id uuid NOT NULL DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  name text,
  success_count integer,
  error_count integer,
  details jsonb,
  hostname text,
  duration_millis integer,
  resource_type text,
  resource_id text,
  status text,
  time_start timestamptz,
  time_end timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (id)
);
CREATE INDEX job_history_resource_idx ON job_history (resource_type, resource_id, created_at DESC);
CREATE INDEX job_history_name_created_at_idx ON job_history (name, created_at DESC);

CREATE TABLE properties (
  name text NOT NULL,
  value text NOT NULL,
  created_by uuid REFERENCES people (id),
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (name)
);

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER people_updated_at BEFORE UPDATE ON people FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER teams_updated_at BEFORE UPDATE ON teams FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER agents_updated_at BEFORE UPDATE ON agents FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER properties_updated_at BEFORE UPDATE ON properties FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER job_history_is_pushed BEFORE UPDATE ON job_history FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();

CREATE TRIGGER teams_table_activity AFTER INSERT OR UPDATE OR DELETE ON teams
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();
CREATE TRIGGER team_members_table_activity AFTER INSERT OR UPDATE OR DELETE ON team_members
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();

-- A deleted agent can no longer authenticate: its person's tokens expire. With cleanup set,
-- everything it replicated is soft-deleted too (never for the local agent).
CREATE FUNCTION agents_on_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  agent agents;
  stamp timestamptz;
BEGIN
  IF TG_OP = 'DELETE' THEN
    agent := OLD;
    stamp := now();
  ELSE
    IF OLD.deleted_at IS NOT NULL OR NEW.deleted_at IS NULL THEN
      RETURN NULL;
    END IF;
    agent := NEW;
    stamp := NEW.deleted_at;
  END IF;

  IF agent.person_id IS NOT NULL THEN
    UPDATE access_tokens SET expires_at = now()
    WHERE person_id = agent.person_id AND (expires_at IS NULL OR expires_at > now());
  END IF;

  IF agent.cleanup AND agent.id <> '00000000-0000-0000-0000-000000000000' AND TG_OP = 'UPDATE' THEN
    UPDATE topologies SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE components SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE canaries SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE checks SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE config_scrapers SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE config_items SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
    UPDATE logging_backends SET deleted_at = stamp WHERE agent_id = agent.id AND deleted_at IS NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER agents_soft_delete AFTER UPDATE OF deleted_at ON agents FOR EACH ROW EXECUTE FUNCTION agents_on_delete();
CREATE TRIGGER agents_hard_delete AFTER DELETE ON agents FOR EACH ROW EXECUTE FUNCTION agents_on_delete();

-- ---------------------------------------------------------------------------------------------
-- Seeds (data-model 1.1)

INSERT INTO agents (id, name) VALUES ('00000000-0000-0000-0000-000000000000', 'local');
INSERT INTO people (name) VALUES ('System');

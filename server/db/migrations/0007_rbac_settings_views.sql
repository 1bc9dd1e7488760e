-- RBAC, connections and other settings, and custom views (data-model sections 9, 10 and 11).

CREATE TABLE connections (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text NOT NULL DEFAULT 'default',
  type text NOT NULL,
  url text,
  source source,
  username text,
  password text,
  certificate text,
  properties jsonb,
  insecure_tls boolean DEFAULT true,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX connections_name_namespace_key ON connections (name, namespace) WHERE deleted_at IS NULL;

CREATE TABLE permission_groups (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text,
  namespace text,
  selectors jsonb NOT NULL,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX permission_groups_namespace_name_key ON permission_groups (namespace, name) WHERE deleted_at IS NULL;

CREATE TABLE permissions (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL DEFAULT generate_ulid()::text,
  namespace text,
  description text,
  source text NOT NULL DEFAULT 'UI',
  subject_type text NOT NULL DEFAULT 'group',
  subject text,
  action text NOT NULL,
  object text,
  object_selector jsonb,
  deny boolean NOT NULL DEFAULT false,
  component_id uuid REFERENCES components (id) ON DELETE CASCADE,
  config_id uuid REFERENCES config_items (id) ON DELETE CASCADE,
  canary_id uuid REFERENCES canaries (id) ON DELETE CASCADE,
  playbook_id uuid REFERENCES playbooks (id) ON DELETE CASCADE,
  connection_id uuid REFERENCES connections (id) ON DELETE CASCADE,
  created_by uuid REFERENCES people (id),
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  team_id uuid REFERENCES teams (id) ON DELETE CASCADE,
  notification_id uuid REFERENCES notifications (id) ON DELETE CASCADE,
  updated_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  error text,
  until timestamptz,
  agents text[],
  tags jsonb,
  PRIMARY KEY (id),
  -- A permission targets exactly one thing: a selector, a global object, or one resource.
  CONSTRAINT permissions_target_check CHECK (
    (CASE WHEN object_selector IS NOT NULL THEN 1 ELSE 0 END
     + CASE WHEN object IS NOT NULL AND object <> '' THEN 1 ELSE 0 END
     + CASE WHEN config_id IS NOT NULL THEN 1 ELSE 0 END
     + CASE WHEN playbook_id IS NOT NULL THEN 1 ELSE 0 END
     + CASE WHEN canary_id IS NOT NULL THEN 1 ELSE 0 END
     + CASE WHEN component_id IS NOT NULL THEN 1 ELSE 0 END
     + CASE WHEN connection_id IS NOT NULL THEN 1 ELSE 0 END) = 1)
);
CREATE INDEX permissions_live_idx ON permissions (subject_type, subject) WHERE deleted_at IS NULL;

CREATE TABLE casbin_rule (
  id bigserial NOT NULL,
  ptype varchar(100),
  v0 varchar(100),
  v1 varchar(100),
  v2 varchar(100),
  v3 varchar(100),
  v4 varchar(100),
  v5 varchar(100),
  PRIMARY KEY (id),
  -- Nulls compare equal so the same policy cannot be stored twice.
  CONSTRAINT casbin_rule_unique UNIQUE NULLS NOT DISTINCT (ptype, v0, v1, v2, v3, v4, v5)
);

CREATE TABLE scopes (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text,
  description text,
  targets jsonb NOT NULL,
  source text NOT NULL DEFAULT 'UI',
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX scopes_namespace_name_key ON scopes (namespace, name) WHERE deleted_at IS NULL;

CREATE TABLE invites (
  id uuid NOT NULL DEFAULT generate_ulid(),
  email text NOT NULL,
  role text,
  invited_at timestamptz NOT NULL DEFAULT now(),
  invited_by uuid REFERENCES people (id),
  accepted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX invites_pending_email_key ON invites (lower(email)) WHERE accepted_at IS NULL;

CREATE TABLE person_analytics (
  person_id uuid NOT NULL REFERENCES people (id) ON DELETE CASCADE,
  key text NOT NULL,
  count integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (person_id, key)
);

CREATE TABLE logging_backends (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  labels jsonb,
  spec jsonb NOT NULL,
  source source,
  agent_id uuid REFERENCES agents (id),
  created_at timestamptz DEFAULT now(),
  created_by uuid REFERENCES people (id),
  updated_at timestamptz,
  deleted_at timestamptz,
  PRIMARY KEY (id)
);

CREATE TABLE integrations (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  icon text,
  spec jsonb,
  source text,
  created_by uuid NOT NULL REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
);

CREATE TABLE views (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text,
  spec jsonb NOT NULL,
  source source NOT NULL DEFAULT 'KubernetesCRD',
  labels jsonb,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  last_ran timestamptz,
  error text,
  updated_at timestamptz,
  deleted_at timestamptz,
  PRIMARY KEY (id)
);

CREATE TABLE view_panels (
  view_id uuid NOT NULL,
  request_fingerprint text NOT NULL DEFAULT '',
  results jsonb NOT NULL,
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  is_pushed boolean NOT NULL DEFAULT false,
  refreshed_at timestamptz DEFAULT now(),
  PRIMARY KEY (view_id, request_fingerprint)
);

-- ---------------------------------------------------------------------------------------------
-- Triggers

CREATE TRIGGER connections_updated_at BEFORE UPDATE ON connections FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER permission_groups_updated_at BEFORE UPDATE ON permission_groups FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER permissions_updated_at BEFORE UPDATE ON permissions FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER scopes_updated_at BEFORE UPDATE ON scopes FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER person_analytics_updated_at BEFORE UPDATE ON person_analytics FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER logging_backends_updated_at BEFORE UPDATE ON logging_backends FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER integrations_updated_at BEFORE UPDATE ON integrations FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER views_updated_at BEFORE UPDATE ON views FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER view_panels_is_pushed BEFORE UPDATE ON view_panels FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();

CREATE TRIGGER permissions_table_activity AFTER INSERT OR UPDATE OR DELETE ON permissions
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();
CREATE TRIGGER permission_groups_table_activity AFTER INSERT OR UPDATE OR DELETE ON permission_groups
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();
CREATE TRIGGER scopes_table_activity AFTER INSERT OR UPDATE OR DELETE ON scopes
  FOR EACH ROW EXECUTE FUNCTION notify_table_activity();

-- The UI shows secrets masked as '***'; sending the mask back must not overwrite the secret.
CREATE FUNCTION connections_keep_masked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.username = '***' THEN NEW.username := OLD.username; END IF;
  IF NEW.password = '***' THEN NEW.password := OLD.password; END IF;
  IF NEW.certificate = '***' THEN NEW.certificate := OLD.certificate; END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER connections_masked_values BEFORE UPDATE ON connections
  FOR EACH ROW EXECUTE FUNCTION connections_keep_masked();

CREATE FUNCTION permissions_normalise() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Legacy rows name their subject through person_id / team_id / notification_id.
  IF NEW.subject IS NULL OR NEW.subject = '' THEN
    IF NEW.team_id IS NOT NULL THEN
      NEW.subject := NEW.team_id::text; NEW.subject_type := 'team';
    ELSIF NEW.person_id IS NOT NULL THEN
      NEW.subject := NEW.person_id::text; NEW.subject_type := 'person';
    ELSIF NEW.notification_id IS NOT NULL THEN
      NEW.subject := NEW.notification_id::text; NEW.subject_type := 'notification';
    END IF;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.object_selector IS DISTINCT FROM OLD.object_selector THEN
    NEW.error := NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER permissions_subject BEFORE INSERT OR UPDATE ON permissions
  FOR EACH ROW EXECUTE FUNCTION permissions_normalise();

-- Counting a key again increments it instead of failing on the primary key.
CREATE FUNCTION person_analytics_increment() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE person_analytics SET count = count + NEW.count WHERE person_id = NEW.person_id AND key = NEW.key;
  IF FOUND THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER person_analytics_upsert BEFORE INSERT ON person_analytics
  FOR EACH ROW EXECUTE FUNCTION person_analytics_increment();

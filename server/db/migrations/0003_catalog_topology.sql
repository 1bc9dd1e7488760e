-- Catalog (config items, changes, analysis, relationships) and topology (data-model section 5).

CREATE TABLE applications (
  id uuid NOT NULL DEFAULT generate_ulid(),
  name text NOT NULL,
  namespace text,
  description text,
  spec jsonb NOT NULL,
  labels jsonb,
  source source NOT NULL,
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);

CREATE TABLE config_scrapers (
  id uuid NOT NULL DEFAULT generate_ulid(),
  description text,
  name text NOT NULL,
  namespace text,
  spec jsonb NOT NULL,
  source source NOT NULL,
  application_id uuid REFERENCES applications (id) ON DELETE CASCADE,
  created_by uuid REFERENCES people (id),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz,
  deleted_at timestamptz,
  is_pushed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (id)
);
CREATE INDEX config_scrapers_live_name_idx ON config_scrapers (name) WHERE deleted_at IS NULL;

CREATE TABLE config_items (
  id uuid NOT NULL DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  icon text,
  scraper_id uuid REFERENCES config_scrapers (id),
  config_class text NOT NULL,
  status text,
  health text,
  ready boolean,
  external_id text[],
  type text NOT NULL,
  name text,
  description text,
  config jsonb,
  source text,
  labels jsonb,
  tags jsonb,
  -- Values of every tag, so a search can match a value without knowing its key.
  tags_values jsonb GENERATED ALWAYS AS (jsonb_path_query_array(tags, '$.*')) STORED,
  properties jsonb,
  properties_values jsonb GENERATED ALWAYS AS (
    jsonb_path_query_array(properties, '$[*].text') || jsonb_path_query_array(properties, '$[*].value')) STORED,
  parent_id uuid REFERENCES config_items (id),
  path text,
  is_pushed boolean NOT NULL DEFAULT false,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  delete_reason text,
  inserted_at timestamptz NOT NULL DEFAULT now(),
  -- The 1.4.48 client and spec read these four cost columns (data-model 13 item 2); scrapers write them.
  cost_per_minute numeric(16,4),
  cost_total_1d numeric(16,4),
  cost_total_7d numeric(16,4),
  cost_total_30d numeric(16,4),
  PRIMARY KEY (id),
  CONSTRAINT config_items_name_type_not_empty CHECK ((name IS NULL OR name <> '') AND type <> '')
);
CREATE INDEX config_items_live_type_name_idx ON config_items (type, name) WHERE deleted_at IS NULL;
CREATE INDEX config_items_live_name_idx ON config_items (name) WHERE deleted_at IS NULL;
CREATE INDEX config_items_config_class_idx ON config_items (config_class) WHERE deleted_at IS NULL;
CREATE INDEX config_items_parent_id_idx ON config_items (parent_id);
CREATE INDEX config_items_scraper_id_idx ON config_items (scraper_id);
CREATE INDEX config_items_agent_id_idx ON config_items (agent_id);
CREATE INDEX config_items_external_id_idx ON config_items USING gin (external_id);
CREATE INDEX config_items_tags_idx ON config_items USING gin (tags);

CREATE UNLOGGED TABLE config_items_last_scraped_time (
  config_id uuid NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
  last_scraped_time timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (config_id)
);

CREATE TABLE config_locations (
  id uuid NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
  location text NOT NULL,
  UNIQUE (id, location)
);
CREATE INDEX config_locations_location_idx ON config_locations (location text_pattern_ops);

CREATE TABLE config_changes (
  id uuid NOT NULL DEFAULT generate_ulid(),
  config_id uuid NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
  external_change_id text,
  external_created_by text,
  change_type text,
  severity text,
  source text,
  summary text,
  patches jsonb,
  diff text,
  details jsonb,
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  count integer NOT NULL DEFAULT 1,
  fingerprint text,
  first_observed timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  inserted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id),
  UNIQUE (config_id, external_change_id)
);
CREATE INDEX config_changes_config_id_created_at_idx ON config_changes (config_id, created_at DESC);
CREATE INDEX config_changes_created_at_idx ON config_changes (created_at DESC);
CREATE INDEX config_changes_change_type_idx ON config_changes (change_type);

CREATE TABLE config_analysis (
  id uuid NOT NULL DEFAULT generate_ulid(),
  config_id uuid NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
  scraper_id uuid,
  created_by uuid REFERENCES people (id),
  source text,
  analyzer text NOT NULL,
  analysis_type text,
  severity text,
  summary text,
  status text DEFAULT 'open',
  message text,
  analysis jsonb,
  properties jsonb,
  properties_values jsonb GENERATED ALWAYS AS (
    jsonb_path_query_array(properties, '$[*].text') || jsonb_path_query_array(properties, '$[*].value')) STORED,
  first_observed timestamptz NOT NULL DEFAULT now(),
  last_observed timestamptz NOT NULL DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  PRIMARY KEY (id)
);
CREATE INDEX config_analysis_config_id_idx ON config_analysis (config_id, status);
CREATE INDEX config_analysis_first_observed_idx ON config_analysis (first_observed DESC);

CREATE TABLE config_relationships (
  config_id uuid NOT NULL,
  related_id uuid NOT NULL,
  relation text,
  scraper_id uuid REFERENCES config_scrapers (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false,
  CONSTRAINT config_relationships_config_id_fkey FOREIGN KEY (config_id) REFERENCES config_items (id) ON DELETE CASCADE,
  CONSTRAINT config_relationships_related_id_fkey FOREIGN KEY (related_id) REFERENCES config_items (id) ON DELETE CASCADE,
  -- Nulls compare equal so automatic (scraper-less) hard/Alias rows can be upserted idempotently.
  CONSTRAINT config_relationships_related_id_config_id_relation_key UNIQUE NULLS NOT DISTINCT (related_id, config_id, relation, scraper_id)
);
CREATE INDEX config_relationships_config_id_idx ON config_relationships (config_id) WHERE deleted_at IS NULL;
CREATE INDEX config_relationships_related_id_idx ON config_relationships (related_id) WHERE deleted_at IS NULL;

CREATE TABLE topologies (
  id uuid NOT NULL DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  name text NOT NULL,
  namespace text NOT NULL,
  labels jsonb,
  source source NOT NULL DEFAULT 'UI',
  spec jsonb,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  is_pushed boolean NOT NULL DEFAULT false,
  schedule text,
  created_by uuid REFERENCES people (id),
  deleted_at timestamptz,
  PRIMARY KEY (id)
);
CREATE UNIQUE INDEX topologies_agent_id_name_namespace_key ON topologies (agent_id, name, namespace)
  WHERE deleted_at IS NULL AND agent_id = '00000000-0000-0000-0000-000000000000';

CREATE TABLE components (
  id uuid NOT NULL DEFAULT generate_ulid(),
  agent_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000' REFERENCES agents (id),
  topology_id uuid REFERENCES topologies (id),
  external_id text NOT NULL,
  parent_id uuid REFERENCES components (id),
  config_id uuid REFERENCES config_items (id),
  name text NOT NULL,
  text text,
  topology_type text,
  namespace text,
  labels jsonb,
  hidden boolean NOT NULL DEFAULT false,
  silenced boolean NOT NULL DEFAULT false,
  is_pushed boolean NOT NULL DEFAULT false,
  status text NOT NULL,
  status_expr text,
  health_expr text,
  health text,
  description text,
  lifecycle text,
  tooltip text,
  status_reason text,
  schedule text,
  icon text,
  type text,
  owner text,
  selectors jsonb,
  log_selectors jsonb,
  component_checks jsonb,
  configs jsonb,
  properties jsonb,
  properties_values jsonb GENERATED ALWAYS AS (
    jsonb_path_query_array(properties, '$[*].text') || jsonb_path_query_array(properties, '$[*].value')) STORED,
  path text,
  summary jsonb,
  is_leaf boolean DEFAULT false,
  cost_per_minute numeric(16,4),
  cost_total_1d numeric(16,4),
  cost_total_7d numeric(16,4),
  cost_total_30d numeric(16,4),
  created_by uuid REFERENCES people (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  PRIMARY KEY (id),
  UNIQUE (topology_id, type, name, parent_id)
);
CREATE INDEX components_live_name_idx ON components (name) WHERE deleted_at IS NULL;
CREATE INDEX components_parent_id_idx ON components (parent_id);
CREATE INDEX components_topology_id_idx ON components (topology_id);

CREATE TABLE component_relationships (
  component_id uuid NOT NULL REFERENCES components (id) ON DELETE CASCADE,
  relationship_id uuid NOT NULL REFERENCES components (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  relationship_path text,
  is_pushed boolean NOT NULL DEFAULT false,
  UNIQUE (component_id, relationship_id, selector_id)
);
CREATE INDEX component_relationships_relationship_id_idx ON component_relationships (relationship_id) WHERE deleted_at IS NULL;

CREATE TABLE config_component_relationships (
  component_id uuid NOT NULL,
  config_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false,
  CONSTRAINT config_component_relationships_component_id_fkey FOREIGN KEY (component_id) REFERENCES components (id) ON DELETE CASCADE,
  CONSTRAINT config_component_relationships_config_id_fkey FOREIGN KEY (config_id) REFERENCES config_items (id) ON DELETE CASCADE,
  UNIQUE (component_id, config_id)
);
CREATE INDEX config_component_relationships_config_id_idx ON config_component_relationships (config_id);

CREATE TABLE team_components (
  team_id uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  component_id uuid NOT NULL REFERENCES components (id) ON DELETE CASCADE,
  role text,
  selector_id text,
  PRIMARY KEY (team_id, component_id),
  UNIQUE (team_id, component_id, selector_id)
);
CREATE INDEX team_components_component_id_idx ON team_components (component_id);

CREATE TABLE check_component_relationships (
  component_id uuid NOT NULL REFERENCES components (id) ON DELETE CASCADE,
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false,
  UNIQUE (component_id, check_id, canary_id, selector_id)
);
CREATE INDEX check_component_relationships_check_id_idx ON check_component_relationships (check_id);
CREATE INDEX check_component_relationships_canary_id_idx ON check_component_relationships (canary_id);

CREATE TABLE check_config_relationships (
  config_id uuid NOT NULL REFERENCES config_items (id) ON DELETE CASCADE,
  check_id uuid NOT NULL REFERENCES checks (id) ON DELETE CASCADE,
  canary_id uuid NOT NULL REFERENCES canaries (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz,
  selector_id text,
  is_pushed boolean NOT NULL DEFAULT false,
  UNIQUE (config_id, check_id, canary_id, selector_id)
);
CREATE INDEX check_config_relationships_check_id_idx ON check_config_relationships (check_id);
CREATE INDEX check_config_relationships_canary_id_idx ON check_config_relationships (canary_id);

-- ---------------------------------------------------------------------------------------------
-- Seed: the scraper that owns configs created by the system itself (data-model 1.1)

INSERT INTO config_scrapers (id, name, source, spec)
VALUES ('00000000-0000-0000-0000-000000000000', 'System', 'System', '{"schedule": "@every 5m", "system": true}');

-- ---------------------------------------------------------------------------------------------
-- Generic triggers

CREATE TRIGGER applications_updated_at BEFORE UPDATE ON applications FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_scrapers_updated_at BEFORE UPDATE ON config_scrapers FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_scrapers_is_pushed BEFORE UPDATE ON config_scrapers FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_items_updated_at BEFORE UPDATE ON config_items FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_items_is_pushed BEFORE UPDATE ON config_items FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_items_last_scraped_time_updated_at BEFORE UPDATE ON config_items_last_scraped_time FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_items_last_scraped_time_is_pushed BEFORE UPDATE ON config_items_last_scraped_time FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_changes_is_pushed BEFORE UPDATE ON config_changes FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_analysis_is_pushed BEFORE UPDATE ON config_analysis FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_relationships_updated_at BEFORE UPDATE ON config_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_relationships_is_pushed BEFORE UPDATE ON config_relationships FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER topologies_updated_at BEFORE UPDATE ON topologies FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER topologies_is_pushed BEFORE UPDATE ON topologies FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER components_updated_at BEFORE UPDATE ON components FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER components_is_pushed BEFORE UPDATE ON components FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER component_relationships_updated_at BEFORE UPDATE ON component_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER component_relationships_is_pushed BEFORE UPDATE ON component_relationships FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER config_component_relationships_updated_at BEFORE UPDATE ON config_component_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER config_component_relationships_is_pushed BEFORE UPDATE ON config_component_relationships FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER check_component_relationships_updated_at BEFORE UPDATE ON check_component_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER check_component_relationships_is_pushed BEFORE UPDATE ON check_component_relationships FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();
CREATE TRIGGER check_config_relationships_updated_at BEFORE UPDATE ON check_config_relationships FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER check_config_relationships_is_pushed BEFORE UPDATE ON check_config_relationships FOR EACH ROW EXECUTE FUNCTION reset_is_pushed();

-- ---------------------------------------------------------------------------------------------
-- config_items behaviour (data-model 5.2)

CREATE FUNCTION config_items_default_name() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.name IS NULL OR NEW.name = '' THEN
    NEW.name := right(NEW.id::text, 12);
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER config_items_name_default BEFORE INSERT ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_default_name();

CREATE FUNCTION config_items_after_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time)
  VALUES (NEW.id, now())
  ON CONFLICT (config_id) DO UPDATE SET last_scraped_time = EXCLUDED.last_scraped_time;
  PERFORM enqueue_event('config.created', NEW.id, NULL);
  IF NEW.health IN ('unhealthy', 'warning') THEN
    PERFORM enqueue_event('config.' || NEW.health, NEW.id, NULL);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER config_items_inserted AFTER INSERT ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_after_insert();

-- Items of different types that share an external id alias each other.
CREATE FUNCTION config_items_link_aliases() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.external_id IS NULL OR cardinality(NEW.external_id) = 0 OR NEW.deleted_at IS NOT NULL THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.external_id IS NOT DISTINCT FROM NEW.external_id AND OLD.type = NEW.type THEN
    RETURN NULL;
  END IF;
  INSERT INTO config_relationships (config_id, related_id, relation)
  SELECT NEW.id, other.id, 'Alias'
  FROM config_items other
  WHERE other.external_id && NEW.external_id
    AND other.type <> NEW.type
    AND other.id <> NEW.id
    AND other.deleted_at IS NULL
    AND NOT EXISTS (
      SELECT 1 FROM config_relationships existing
      WHERE existing.relation = 'Alias'
        AND ((existing.config_id = NEW.id AND existing.related_id = other.id)
          OR (existing.config_id = other.id AND existing.related_id = NEW.id)))
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER config_items_aliases AFTER INSERT OR UPDATE OF external_id, type ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_link_aliases();

-- parent_id is mirrored as exactly one 'hard' relationship from the parent to the child.
CREATE FUNCTION config_items_sync_parent() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.parent_id IS NOT DISTINCT FROM NEW.parent_id THEN
      RETURN NULL;
    END IF;
    DELETE FROM config_relationships
    WHERE related_id = NEW.id AND relation = 'hard' AND config_id IS DISTINCT FROM NEW.parent_id;
  END IF;
  IF NEW.parent_id IS NOT NULL THEN
    INSERT INTO config_relationships (config_id, related_id, relation)
    VALUES (NEW.parent_id, NEW.id, 'hard')
    ON CONFLICT (related_id, config_id, relation, scraper_id) DO UPDATE SET deleted_at = NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER config_items_parent_relationship AFTER INSERT OR UPDATE OF parent_id ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_sync_parent();

CREATE FUNCTION config_health_event_name(health text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'config.' || CASE WHEN health IN ('healthy', 'unhealthy', 'warning') THEN health ELSE 'unknown' END
$$;

CREATE FUNCTION config_items_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  new_health text := coalesce(nullif(NEW.health, ''), 'unknown');
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    PERFORM enqueue_event('config.deleted', NEW.id, NULL);
  END IF;

  IF coalesce(nullif(OLD.health, ''), 'unknown') IS DISTINCT FROM new_health THEN
    IF OLD.health = 'unhealthy' AND NEW.health = 'warning' THEN
      PERFORM enqueue_event('config.degraded', NEW.id, NULL);
    ELSE
      PERFORM enqueue_event(config_health_event_name(NEW.health), NEW.id, NULL);
    END IF;

    IF NEW.agent_id = '00000000-0000-0000-0000-000000000000' THEN
      INSERT INTO config_changes (config_id, change_type, severity, source, summary, details)
      VALUES (
        NEW.id,
        CASE new_health WHEN 'healthy' THEN 'Healthy' WHEN 'unhealthy' THEN 'Unhealthy' WHEN 'warning' THEN 'Warning' ELSE 'HealthUnknown' END,
        CASE new_health WHEN 'unhealthy' THEN 'medium' WHEN 'warning' THEN 'low' ELSE 'info' END,
        'config-db-health-trigger',
        concat_ws(': ', coalesce(NEW.status, new_health), nullif(NEW.description, '')),
        jsonb_build_object(
          'previous', jsonb_build_object('health', OLD.health, 'status', OLD.status, 'ready', OLD.ready, 'description', OLD.description),
          'current', jsonb_build_object('health', NEW.health, 'status', NEW.status, 'ready', NEW.ready, 'description', NEW.description)));
    END IF;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER config_items_updated AFTER UPDATE ON config_items
  FOR EACH ROW EXECUTE FUNCTION config_items_after_update();

-- ---------------------------------------------------------------------------------------------
-- config_changes: repeated writes of one external change merge into one row (data-model 5.3)

CREATE FUNCTION config_changes_merge_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  existing config_changes;
BEGIN
  IF NEW.external_change_id IS NOT NULL THEN
    SELECT * INTO existing FROM config_changes
    WHERE config_id = NEW.config_id AND external_change_id = NEW.external_change_id
    FOR UPDATE;
  END IF;
  IF existing.id IS NULL THEN
    SELECT * INTO existing FROM config_changes WHERE id = NEW.id FOR UPDATE;
  END IF;
  IF existing.id IS NULL THEN
    RETURN NEW;
  END IF;

  UPDATE config_changes SET
    external_created_by = NEW.external_created_by,
    change_type = NEW.change_type,
    severity = NEW.severity,
    source = NEW.source,
    summary = NEW.summary,
    patches = NEW.patches,
    diff = NEW.diff,
    details = NEW.details,
    created_by = NEW.created_by,
    fingerprint = NEW.fingerprint,
    created_at = NEW.created_at,
    count = CASE
      WHEN existing.details IS DISTINCT FROM NEW.details OR existing.created_at IS DISTINCT FROM NEW.created_at
        THEN existing.count + 1
      ELSE existing.count END
  WHERE id = existing.id;
  -- The merged row replaces this insert.
  RETURN NULL;
END
$$;
CREATE TRIGGER config_changes_merge BEFORE INSERT ON config_changes
  FOR EACH ROW EXECUTE FUNCTION config_changes_merge_insert();

CREATE FUNCTION config_changes_before_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- first_observed stays with the first sighting; inserted_at records the latest write.
  NEW.first_observed := OLD.first_observed;
  NEW.inserted_at := now();
  RETURN NEW;
END
$$;
CREATE TRIGGER config_changes_touch BEFORE UPDATE ON config_changes
  FOR EACH ROW EXECUTE FUNCTION config_changes_before_update();

CREATE FUNCTION config_changes_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Replication bookkeeping (is_pushed) is not a change anyone should be notified about.
  IF TG_OP = 'UPDATE'
     AND (to_jsonb(OLD) - 'is_pushed' - 'inserted_at') = (to_jsonb(NEW) - 'is_pushed' - 'inserted_at') THEN
    RETURN NULL;
  END IF;
  IF NEW.source IS DISTINCT FROM 'config-db-health-trigger' THEN
    PERFORM enqueue_event(
      CASE WHEN NEW.change_type = 'diff' THEN 'config.updated' ELSE 'config.changed' END,
      NEW.id,
      jsonb_build_object('config_id', NEW.config_id, 'change_type', NEW.change_type));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER config_changes_enqueue AFTER INSERT OR UPDATE ON config_changes
  FOR EACH ROW EXECUTE FUNCTION config_changes_event();

-- ---------------------------------------------------------------------------------------------
-- components (data-model 5.8)

CREATE FUNCTION components_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    DELETE FROM team_components WHERE component_id = NEW.id;
    UPDATE component_relationships SET deleted_at = NEW.deleted_at
      WHERE (component_id = NEW.id OR relationship_id = NEW.id) AND deleted_at IS NULL;
    UPDATE check_component_relationships SET deleted_at = NEW.deleted_at WHERE component_id = NEW.id AND deleted_at IS NULL;
    UPDATE config_component_relationships SET deleted_at = NEW.deleted_at WHERE component_id = NEW.id AND deleted_at IS NULL;
  END IF;
  IF OLD.health IS DISTINCT FROM NEW.health THEN
    PERFORM enqueue_event('component.' || coalesce(nullif(NEW.health, ''), 'unknown'), NEW.id, NULL);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER components_updated AFTER UPDATE ON components
  FOR EACH ROW EXECUTE FUNCTION components_after_update();

-- ---------------------------------------------------------------------------------------------
-- teams: a deleted team stops owning components (data-model 9.2)

CREATE FUNCTION teams_after_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
    DELETE FROM team_components WHERE team_id = NEW.id;
  END IF;
  IF OLD.spec IS DISTINCT FROM NEW.spec THEN
    -- Notification errors caused by the old team spec may no longer apply.
    UPDATE notifications SET error = NULL, error_at = NULL WHERE team_id = NEW.id AND error IS NOT NULL;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER teams_updated AFTER UPDATE ON teams
  FOR EACH ROW EXECUTE FUNCTION teams_after_update();

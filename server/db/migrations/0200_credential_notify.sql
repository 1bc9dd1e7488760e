-- Credential revocation is announced on channel `lookout_credentials`, so every process that
-- keeps resolved credentials in memory (identity/credential-cache.ts) drops them at once.
-- Payloads: `token:<sha256>`, `session:<sha256>` (console session), `kratos:<sha256>`
-- (identity service session) and `person:<uuid>` (everything a person holds). Only changes
-- that can take access away notify: a renewal that pushes an expiry later stays quiet, so the
-- rolling session expiry does not wake every process on each use.
CREATE FUNCTION lookout.notify_credentials(payload text) RETURNS void
LANGUAGE sql AS $$
  SELECT pg_notify('lookout_credentials', payload)
$$;

CREATE FUNCTION lookout.access_tokens_revoked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lookout.notify_credentials('token:' || OLD.value);
  RETURN NULL;
END
$$;

CREATE TRIGGER access_tokens_revoked_delete AFTER DELETE ON access_tokens
  FOR EACH ROW EXECUTE FUNCTION lookout.access_tokens_revoked();
CREATE TRIGGER access_tokens_revoked_update AFTER UPDATE ON access_tokens
  FOR EACH ROW
  WHEN (NEW.value IS DISTINCT FROM OLD.value
        OR NEW.person_id IS DISTINCT FROM OLD.person_id
        OR (NEW.expires_at IS NOT NULL AND (OLD.expires_at IS NULL OR NEW.expires_at < OLD.expires_at)))
  EXECUTE FUNCTION lookout.access_tokens_revoked();

CREATE FUNCTION lookout.sessions_revoked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lookout.notify_credentials('session:' || OLD.id_hash);
  RETURN NULL;
END
$$;

CREATE TRIGGER sessions_revoked_delete AFTER DELETE ON lookout.sessions
  FOR EACH ROW EXECUTE FUNCTION lookout.sessions_revoked();
CREATE TRIGGER sessions_revoked_update AFTER UPDATE ON lookout.sessions
  FOR EACH ROW
  WHEN (NEW.id_hash IS DISTINCT FROM OLD.id_hash
        OR NEW.person_id IS DISTINCT FROM OLD.person_id
        OR NEW.roles IS DISTINCT FROM OLD.roles
        OR NEW.expires_at < OLD.expires_at)
  EXECUTE FUNCTION lookout.sessions_revoked();

CREATE FUNCTION lookout.identity_sessions_revoked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lookout.notify_credentials('kratos:' || OLD.token_hash);
  RETURN NULL;
END
$$;

-- A step-up rotates the token: the old token_hash must stop working everywhere.
CREATE TRIGGER identity_sessions_revoked_delete AFTER DELETE ON identity.sessions
  FOR EACH ROW EXECUTE FUNCTION lookout.identity_sessions_revoked();
CREATE TRIGGER identity_sessions_revoked_update AFTER UPDATE ON identity.sessions
  FOR EACH ROW
  WHEN (NEW.token_hash IS DISTINCT FROM OLD.token_hash
        OR NEW.identity_id IS DISTINCT FROM OLD.identity_id
        OR (OLD.active AND NOT NEW.active)
        OR NEW.expires_at < OLD.expires_at)
  EXECUTE FUNCTION lookout.identity_sessions_revoked();

-- A principal carries the person's name, email and type, and exists only while the person is
-- neither deleted nor deactivated. Roles are not part of it (the authorizer reads casbin_rule),
-- so role changes need no notice here.
CREATE FUNCTION lookout.person_credentials_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lookout.notify_credentials('person:' || OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER people_credentials_delete AFTER DELETE ON people
  FOR EACH ROW EXECUTE FUNCTION lookout.person_credentials_changed();
CREATE TRIGGER people_credentials_update AFTER UPDATE ON people
  FOR EACH ROW
  WHEN (NEW.deleted_at IS DISTINCT FROM OLD.deleted_at
        OR NEW.name IS DISTINCT FROM OLD.name
        OR NEW.email IS DISTINCT FROM OLD.email
        OR NEW.type IS DISTINCT FROM OLD.type)
  EXECUTE FUNCTION lookout.person_credentials_changed();

CREATE FUNCTION lookout.inactive_people_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lookout.notify_credentials('person:' || NEW.person_id);
  RETURN NULL;
END
$$;

CREATE TRIGGER inactive_people_credentials AFTER INSERT ON lookout.inactive_people
  FOR EACH ROW EXECUTE FUNCTION lookout.inactive_people_changed();

-- Identity state (active/inactive) and traits (the name and email a Kratos principal shows).
CREATE TRIGGER identities_credentials_update AFTER UPDATE ON identity.identities
  FOR EACH ROW
  WHEN (NEW.state IS DISTINCT FROM OLD.state OR NEW.traits IS DISTINCT FROM OLD.traits)
  EXECUTE FUNCTION lookout.person_credentials_changed();
CREATE TRIGGER identities_credentials_delete AFTER DELETE ON identity.identities
  FOR EACH ROW EXECUTE FUNCTION lookout.person_credentials_changed();
